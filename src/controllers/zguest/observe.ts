import type { ZGuest } from '../../api/index.js';
import type { GuestState, Hypervisor } from '../../hypervisor/index.js';
import type { ObservedCache } from './observed-cache.js';
import { isCopy } from './ownership.js';
import { isDeleting } from './plan.js';

/**
 * Set by the REST sidecar on a power action (rest/guests/actions.ts) so that the controller looks
 * at the host again even when the spec already says so: the held observation is then checked
 * with one power query before it is trusted.
 */
export const LOOK_AGAIN_ANNOTATION = 'zvm.dev/rest-requested-at';

export interface Observation {
  state: GuestState | undefined;
  /** true when the state came from the cache: a refusal may then be the cache's fault */
  cached: boolean;
}

export interface ObserveInput {
  hv: Hypervisor;
  cache: ObservedCache;
  host: string;
  userid: string;
  guest: ZGuest;
  /** read the host whatever the cache holds */
  fresh?: boolean;
  /** the plan may act on the power (a deploy, which only an off guest may take): a held observation's power is checked */
  checkPower?: boolean;
  signal: AbortSignal;
}

export function lookAgainOf(guest: ZGuest): string | undefined {
  return guest.metadata.annotations?.[LOOK_AGAIN_ANNOTATION];
}

/**
 * A guest no run has reported on yet (status without observedGeneration), neither being deleted nor to
 * be adopted, is one this controller has still to create: it is taken as absent without a read, once
 * per process (ObservedCache.firstLook), so its create is the first call. A copy made elsewhere (a move,
 * a restore: ownership.ts isCopy) is read first: its guest most likely exists. If the entry exists after all
 * (a crash between the create and the status write, a userid taken by another), z/VM refuses the create
 * (400/8) and changes nothing; the refusal, like any failure, makes the next look a read.
 */
function toBeCreated(o: ObserveInput): boolean {
  const g = o.guest;
  return g.status?.observedGeneration === undefined && !isDeleting(g) && g.spec.adopt !== true && !isCopy(g) && o.cache.firstLook(o.host, o.userid);
}

/** The guest's state: the held observation when there is one, nobody asked to look again and its power is not in question; else a read. */
export async function observeGuest(o: ObserveInput): Promise<Observation> {
  const entry = o.fresh ? undefined : o.cache.get(o.host, o.userid);
  if (!o.fresh && !entry && toBeCreated(o)) return { state: undefined, cached: true };
  const asked = lookAgainOf(o.guest);
  if (entry && asked === entry.lookAgain && !o.checkPower) return { state: entry.state, cached: true };
  if (entry) {
    // one batched-size question instead of a full read: is the power what we hold?
    const power = await o.hv.queryPowerState(o.userid, { signal: o.signal });
    if (power === entry.state.power) {
      o.cache.set(o.host, o.userid, entry.state, asked);
      return { state: entry.state, cached: true };
    }
  }
  const state = await o.hv.describeGuest(o.userid, { signal: o.signal });
  o.cache.set(o.host, o.userid, state, asked);
  return { state, cached: false };
}
