import type { ZGuest } from '../../api/index.js';
import type { GuestState } from '../../hypervisor/port.js';

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

export function hostOf(guest: ZGuest): string {
  return guest.spec.host ?? 'default';
}

/** Older claim wins: creationTimestamp first, then uid, so every replica picks the same winner. */
export function isOlder(a: ZGuest, b: ZGuest): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;
  if (ta !== tb) return ta < tb;
  return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
}

/** namespace/name of the oldest other ZGuest claiming the same host and userid, if it is older than `guest`. */
export function findOlderClaim(guest: ZGuest, all: ZGuest[]): string | undefined {
  const userid = guest.spec.userid.toUpperCase();
  const host = hostOf(guest);
  let winner: ZGuest | undefined;
  for (const other of all) {
    if (other.metadata.uid === guest.metadata.uid) continue;
    if (other.spec.userid.toUpperCase() !== userid || hostOf(other) !== host) continue;
    if (isOlder(other, guest) && (!winner || isOlder(other, winner))) winner = other;
  }
  return winner ? `${winner.metadata.namespace ?? ''}/${winner.metadata.name}` : undefined;
}
