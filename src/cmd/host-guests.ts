import { ownerUidOf } from '../controllers/index.js';
import type { Hypervisor, PowerState } from '../hypervisor/index.js';

/** One userid as the host itself reports it (`kubectl zvm guests HOST`). */
export interface HostGuest {
  userid: string;
  /** in the user directory */
  defined: boolean;
  power: PowerState;
  /** the ZGuest uid our owner mark names, when the entry carries one */
  ownerUid?: string;
}

/** A host's directory can be large: the owner marks of at most this many entries are read. */
export const MAX_DESCRIBED = 500;

/**
 * What the host reports, read only: the directory, who is logged on, and our owner mark of each entry
 * (one Image_Query_DM per entry, bounded). Logged-on userids outside the directory are listed too.
 */
export async function readHostGuests(hv: Pick<Hypervisor, 'listDirectory' | 'queryActiveGuests' | 'describeGuest'>): Promise<HostGuest[]> {
  const [directory, active] = await Promise.all([hv.listDirectory(), hv.queryActiveGuests()]);
  const defined = new Set(directory.map((u) => u.toUpperCase()));
  const userids = [...new Set([...defined, ...[...active.keys()].map((u) => u.toUpperCase())])].sort();
  const out: HostGuest[] = [];
  for (const userid of userids) {
    const state = defined.has(userid) && out.length < MAX_DESCRIBED ? await hv.describeGuest(userid) : undefined;
    const ownerUid = state ? ownerUidOf(state) : undefined;
    out.push({ userid, defined: defined.has(userid), power: active.get(userid) ?? state?.power ?? 'off', ...(ownerUid ? { ownerUid } : {}) });
  }
  return out;
}
