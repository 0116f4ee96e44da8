/**
 * A copy of a ZGuest made in another store (`clusterctl move`, a restore from backup) comes without
 * status, while the guest it owns through the mark (ownership.ts) runs as the original left it. What
 * that status recorded is rebuilt from the spec so nothing is done twice: the spec's image counts as
 * deployed, the one-shot tokens present count as handled. Pure.
 */
import type { GuestState } from '../../hypervisor/index.js';
import type { ResolvedZGuest } from './class.js';
import { ownedFromCopy } from './ownership.js';
import { ACK_FIELD, pendingTokens } from './tokens.js';

export function withStatusOfCopy(guest: ResolvedZGuest, observed: GuestState | undefined): ResolvedZGuest {
  if (guest.status?.phase !== undefined || !ownedFromCopy(guest, observed)) return guest;
  const status = { ...guest.status };
  if (guest.spec.image) status.deployedImage = guest.spec.image;
  for (const t of pendingTokens(guest)) status[ACK_FIELD[t.token]] = t.value;
  return { ...guest, status };
}
