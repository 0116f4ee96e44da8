import { hostOf, type ZGuest } from '../../api/index.js';
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

export function computeOwnership(guest: ZGuest, observed: GuestState | undefined, claimedBy: string | undefined): Ownership {
  if (claimedBy) return 'claimed';
  if (!observed) return 'absent';
  const owner = ownerUidOf(observed);
  if (owner && owner === guest.metadata.uid?.toUpperCase()) return 'owned';
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
    if (hostOwnerUid.toUpperCase() === guest.metadata.uid?.toUpperCase()) return undefined;
    const proven = rivals.find((o) => o.metadata.uid?.toUpperCase() === hostOwnerUid.toUpperCase());
    if (proven) return nameOf(proven);
  }
  let winner: ZGuest | undefined;
  for (const other of rivals) {
    if (isOlder(other, guest) && (!winner || isOlder(other, winner))) winner = other;
  }
  return winner ? nameOf(winner) : undefined;
}
