import { hostOf, OWNER_UID_ANNOTATION, type ZGuest } from '../../api/index.js';
import type { GuestState } from '../../hypervisor/index.js';

/**
 * Who may manage a z/VM userid. A userid is host-global, so ownership must be provable from the
 * host itself: the entry we create carries a comment naming our uid. It is written in the same
 * call that creates the entry, so no crash can separate "created" from "recorded as ours".
 */
export type Ownership =
  | 'absent' /* no entry: ours to create */
  | 'owned' /* entry carries our owner comment */
  | 'adopted' /* entry exists, spec.adopt takes it over explicitly */
  | 'foreign' /* entry exists and is not ours: never a silent takeover */
  | 'claimed' /* an older ZGuest claims the same host and userid */
  | 'unknown'; /* the host could not be asked */

const OWNER_TAG = 'ZVM-OPERATOR OWNER';

/** Comment text for GuestDefinition.comments (the directory writes it as `* <TEXT>`, upper-cased). */
export function ownerComment(uid: string): string {
  return `${OWNER_TAG} ${uid}`;
}

/** The uid named by the owner comment of a directory entry, upper-cased; undefined when none. */
export function ownerUidOf(observed: GuestState): string | undefined {
  for (const line of observed.directory.lines) {
    const m = /^\*\s*ZVM-OPERATOR OWNER\s+(\S+)/i.exec(line.trim());
    if (m) return m[1].toUpperCase();
  }
  return undefined;
}

/**
 * The uid this ZGuest's owner mark names, upper-cased: the one recorded in its annotation (carried over by
 * `clusterctl move` or a restore, which give the object a new uid), else its own.
 */
export function markUidOf(guest: ZGuest): string {
  return markOf(guest).toUpperCase();
}

/** The same uid as written (the owner comment of a new entry, the annotation). */
export function markOf(guest: ZGuest): string {
  return guest.metadata.annotations?.[OWNER_UID_ANNOTATION] ?? guest.metadata.uid ?? '';
}

/** A copy of an object made in another store (a move, a restore): it names a mark another uid wrote. */
export function isCopy(guest: ZGuest): boolean {
  return markUidOf(guest) !== (guest.metadata.uid ?? '').toUpperCase();
}

/** Owned through a mark an earlier copy of this object wrote: the host is not rewritten. */
export function ownedFromCopy(guest: ZGuest, observed: GuestState | undefined): boolean {
  return observed !== undefined && isCopy(guest) && ownerUidOf(observed) === markUidOf(guest);
}

export function computeOwnership(guest: ZGuest, observed: GuestState | undefined, claimedBy: string | undefined): Ownership {
  if (claimedBy) return 'claimed';
  if (!observed) return 'absent';
  const owner = ownerUidOf(observed);
  if (owner && owner === markUidOf(guest)) return 'owned';
  return guest.spec.adopt === true ? 'adopted' : 'foreign';
}

export function isConflict(ownership: Ownership): boolean {
  return ownership === 'claimed' || ownership === 'foreign';
}

/** Older claim wins: creationTimestamp first, then uid, so every replica picks the same winner. */
export function isOlder(a: ZGuest, b: ZGuest): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;
  if (ta !== tb) return ta < tb;
  return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
}

/** The value rival claimants share: index the informer's guests by it (src/runtime/informer-index.ts). */
export function claimIndexValue(guest: ZGuest): string {
  return `${hostOf(guest)}/${guest.spec?.userid?.toUpperCase() ?? ''}`; // objects off the wire may lack a userid
}

function sameUserid(a: ZGuest, b: ZGuest): boolean {
  return a.spec.userid.toUpperCase() === b.spec.userid.toUpperCase() && hostOf(a) === hostOf(b);
}

const nameOf = (g: ZGuest): string => `${g.metadata.namespace ?? ''}/${g.metadata.name}`;

/**
 * namespace/name of the ZGuest that owns the userid instead of `guest`, if any. Proof on the host
 * wins: the ZGuest named by the entry's owner comment owns it, whatever the ages. Without such
 * proof the oldest claimant does, so every replica picks the same winner.
 */
export function findOlderClaim(guest: ZGuest, all: ZGuest[], hostOwnerUid?: string): string | undefined {
  const rivals = all.filter((o) => o.metadata.uid !== guest.metadata.uid && sameUserid(o, guest));
  if (hostOwnerUid) {
    // copies of one object (a move, a restore) name the same mark: among them the oldest proves it
    const proven = rivals.filter((o) => markUidOf(o) === hostOwnerUid.toUpperCase());
    if (markUidOf(guest) === hostOwnerUid.toUpperCase()) return oldestOlderThan(guest, proven);
    const first = oldestOlderThan(undefined, proven);
    if (first) return first;
  }
  return oldestOlderThan(guest, rivals);
}

/** namespace/name of the oldest of `others` (only those older than `guest`, when given). */
function oldestOlderThan(guest: ZGuest | undefined, others: ZGuest[]): string | undefined {
  let winner: ZGuest | undefined;
  for (const other of others) {
    if ((!guest || isOlder(other, guest)) && (!winner || isOlder(other, winner))) winner = other;
  }
  return winner ? nameOf(winner) : undefined;
}
