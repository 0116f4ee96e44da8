/**
 * Orphaned guests, pure part: a guest on a host whose directory entry carries our owner mark
 * (`* ZVM-OPERATOR OWNER <uid>`, zguest/ownership.ts) while no ZGuest with that uid exists any more
 * (a crash between host delete and finalizer removal, a restored backup of the store, a finalizer
 * stripped by hand). A guest without our mark is never an orphan, whatever it is.
 */
import { hostOf, type ZGuest, type ZHost } from '../../api/index.js';
import { markUidOf } from './ownership.js';

/** One entry of ZHost status.orphanedGuests. */
export interface OrphanRecord {
  userid: string;
  /** the uid the owner mark names */
  ownerUid: string;
  /** when the sweeper first found it (RFC 3339); the grace period runs from here */
  since: string;
}

export type OrphanPolicy = 'Report' | 'Delete';

export const DEFAULT_ORPHAN_GRACE_SECONDS = 3600;

/** Userids some ZGuest places on this host: never candidates, whatever their mark says. */
export function claimedUserids(guests: ZGuest[], host: string): Set<string> {
  return new Set(guests.filter((g) => hostOf(g) === host).map((g) => g.spec.userid.toUpperCase()));
}

/**
 * The orphans among marked guests: `marks` maps each unclaimed userid on the host to the owner uid
 * its entry names (undefined: no mark). An orphan's owner uid belongs to no existing ZGuest.
 */
export function findOrphans(marks: Map<string, string | undefined>, guests: ZGuest[], host: string): { userid: string; ownerUid: string }[] {
  const uids = new Set(guests.map(markUidOf));
  const claimed = claimedUserids(guests, host);
  const orphans: { userid: string; ownerUid: string }[] = [];
  for (const [userid, owner] of marks) {
    if (owner && !uids.has(owner.toUpperCase()) && !claimed.has(userid)) orphans.push({ userid, ownerUid: owner.toUpperCase() });
  }
  return orphans.sort((a, b) => a.userid.localeCompare(b.userid));
}

export interface OrphanPlan {
  /** the new status list: still-orphaned guests keep their `since` */
  records: OrphanRecord[];
  /** found this time and not before: each gets an Event */
  found: OrphanRecord[];
  /** policy Delete and the grace period over */
  toDelete: OrphanRecord[];
}

export function policyOf(host: ZHost): { policy: OrphanPolicy; graceMs: number } {
  return {
    policy: host.spec.orphanPolicy ?? 'Report',
    graceMs: (host.spec.orphanGracePeriodSeconds ?? DEFAULT_ORPHAN_GRACE_SECONDS) * 1000,
  };
}

/** Pure: what to record, report and delete, from the previous status list and this look. */
export function planOrphans(previous: OrphanRecord[], current: { userid: string; ownerUid: string }[], host: ZHost, now: Date): OrphanPlan {
  const before = new Map(previous.map((r) => [`${r.userid}/${r.ownerUid}`, r]));
  const records: OrphanRecord[] = [];
  const found: OrphanRecord[] = [];
  for (const o of current) {
    const known = before.get(`${o.userid}/${o.ownerUid}`);
    const record = known ?? { ...o, since: now.toISOString() };
    records.push(record);
    if (!known) found.push(record);
  }
  const { policy, graceMs } = policyOf(host);
  const toDelete = policy === 'Delete' ? records.filter((r) => now.getTime() - Date.parse(r.since) >= graceMs) : [];
  return { records, found, toDelete };
}

export function sameRecords(a: OrphanRecord[] | undefined, b: OrphanRecord[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b);
}
