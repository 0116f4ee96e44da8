import { Annotations, type ZGuest } from '../../api/index.js';
import type { Token } from './steps.js';

/** A one-shot annotation token (docs/architecture.md §3) not yet acknowledged in status. */
export interface PendingToken {
  token: Token;
  value: string;
  /** false when the value is older than the last handled one: acknowledge without acting */
  act: boolean;
}

const SOURCES: { token: Token; annotation: string; handled: (g: ZGuest) => string | undefined }[] = [
  { token: 'reboot', annotation: Annotations.rebootRequestedAt, handled: (g) => g.status?.lastHandledRebootAt },
  { token: 'reset', annotation: Annotations.resetRequestedAt, handled: (g) => g.status?.lastHandledResetAt },
  { token: 'growRootVolume', annotation: Annotations.growRootVolumeRequestedAt, handled: (g) => g.status?.lastHandledGrowRootVolumeAt },
];

/** A different value acts when it is newer or when the two cannot be compared as times. */
function isNewer(value: string, last: string | undefined): boolean {
  if (last === undefined) return true;
  const v = Date.parse(value);
  const l = Date.parse(last);
  return Number.isNaN(v) || Number.isNaN(l) || v > l;
}

/** The status field that records a token as handled. */
export const ACK_FIELD: Record<Token, 'lastHandledRebootAt' | 'lastHandledResetAt' | 'lastHandledGrowRootVolumeAt'> = {
  reboot: 'lastHandledRebootAt',
  reset: 'lastHandledResetAt',
  growRootVolume: 'lastHandledGrowRootVolumeAt',
};

/** Tokens that log the guest off and on again. */
export const isCycleToken = (t: Token) => t === 'reboot' || t === 'reset';

export function pendingTokens(guest: ZGuest): PendingToken[] {
  const annotations = guest.metadata.annotations ?? {};
  const pending: PendingToken[] = [];
  for (const source of SOURCES) {
    const value = annotations[source.annotation];
    const last = source.handled(guest);
    if (!value || value === last) continue;
    pending.push({ token: source.token, value, act: isNewer(value, last) });
  }
  return pending;
}
