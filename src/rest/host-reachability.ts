/**
 * Live reads on a host whose SMAPI is declared unreachable (its ZHost says SmapiReachable=False,
 * controllers/zguest/outage.ts) answer the SMAPI-down envelope at once, as writes do
 * (write-and-wait.ts), instead of waiting out the SMAPI client's retries for an answer that cannot
 * come. Done once, where REST obtains a host's Hypervisor: its SMAPI calls first look at the ZHost,
 * which the process's store feed keeps current (one ZHost watch, no store read per call). Until the
 * outage is declared every call takes the normal path, retries included.
 */
import { unreachableSince, type ZHost } from '../api/index.js';
import type { Hypervisor } from '../hypervisor/index.js';
import type { StateStore } from '../store/port.js';
import type { HypervisorResolver } from './config.js';
import { feilongErrors } from './feilong-error.js';
import { RESYNC, type StoreFeed } from './store-feed.js';

/** Hypervisor members that make no SMAPI call (or not through SMAPI: the management guest). */
const UNGATED = new Set<PropertyKey>(['hostName', 'health', 'close', 'connection', 'mgmt']);
/** Members that group further SMAPI calls; every one of their methods answers a promise. */
const GROUPS = new Set<PropertyKey>(['vswitches', 'hostQueries', 'fcp', 'relocation']);

/** A host's gate: `refusal()` is the error to answer at once, or undefined; `ready` settles once it is known. */
interface Gate {
  ready: Promise<void>;
  /** true once `ready` has settled: the check needs no await (the common case, on every live read) */
  known: boolean;
  refusal(): Error | undefined;
}

/** Every method of `target` first passes `gate`; wrappers are made once per member, not per call. */
function gated<T extends object>(target: T, gate: Gate, skip: (key: PropertyKey) => boolean): T {
  const made = new Map<PropertyKey, { value: unknown; wrapped: unknown }>();
  const wrap = (t: object, fn: (...a: unknown[]) => unknown) => (...args: unknown[]): unknown => {
    if (!gate.known) return gate.ready.then(() => pass(t, fn, args));
    return pass(t, fn, args);
  };
  const pass = (t: object, fn: (...a: unknown[]) => unknown, args: unknown[]): Promise<unknown> => {
    const refused = gate.refusal();
    if (refused) return Promise.reject(refused);
    try {
      return Promise.resolve(fn.apply(t, args));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key);
      if (skip(key) || value === undefined || value === null) return value;
      const cached = made.get(key);
      if (cached && cached.value === value) return cached.wrapped;
      let wrapped: unknown;
      if (GROUPS.has(key) && typeof value === 'object') wrapped = gated(value, gate, () => false);
      else if (typeof value === 'function') wrapped = wrap(t, value as (...a: unknown[]) => unknown);
      else return value;
      made.set(key, { value, wrapped });
      return wrapped;
    },
  });
}

/** `inner`, with each host's SMAPI calls refused at once while its ZHost declares it unreachable. */
export function createReachabilityGate(inner: HypervisorResolver, store: StateStore, feed: StoreFeed): HypervisorResolver {
  /** per host: when its outage was declared (undefined: reachable), known once `ready` settles */
  const hosts = new Map<string, Gate & { since?: string }>();

  function follow(host: string): Gate {
    const entry = hosts.get(host);
    if (entry) return entry;
    const e: Gate & { since?: string } = {
      ready: Promise.resolve(),
      known: false,
      refusal: () => (e.since ? feilongErrors.smapiDown(`SMAPI of host ${host} is unreachable (since ${e.since}); nothing was asked of it, try again when it answers`) : undefined),
    };
    const read = async () => void (e.since = unreachableSince(await store.get<ZHost>('ZHost', { name: host })));
    // subscribed for the life of the process: one listener per host on the feed's one ZHost watch
    e.ready = feed.subscribe<ZHost>('ZHost', { name: host }, (news) => {
      if (news === RESYNC) void read().catch(() => undefined);
      else e.since = unreachableSince(news);
    }).then(read).then(() => {
      e.known = true;
    }, () => {
      // no feed (closing) or no store: the call takes the normal path; the next call tries again
      hosts.delete(host);
    });
    hosts.set(host, e);
    return e;
  }

  /** one gated view per host and inner Hypervisor: live reads ask for it on every request */
  const views = new Map<string, { of: Hypervisor; gate: Gate; view: Hypervisor }>();
  return {
    forHost(name: string): Hypervisor {
      const hv = inner.forHost(name);
      const gate = follow(name);
      const seen = views.get(name);
      if (seen && seen.of === hv && seen.gate === gate) return seen.view;
      const view = gated(hv, gate, (key) => UNGATED.has(key));
      views.set(name, { of: hv, gate, view });
      return view;
    },
  };
}
