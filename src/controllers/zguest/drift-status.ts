import type { Condition, ZGuest, ZGuestStatus } from '../../api/index.js';
import type { PowerState } from '../../hypervisor/index.js';
import { findCondition, type ConditionInput } from '../conditions.js';
import type { DriftFact } from '../kit/index.js';

/**
 * What a drift looks like in status. The drift detector records a drift fact (kit/facts.ts) the moment
 * its batched host query disagrees with a settled guest; the reconcile it wakes first writes
 * `Drifted=True` and `Ready=False` (reason DriftDetected) from that fact, before the repair, and the
 * status after the repair turns Drifted to False (reason DriftRepaired), which is when the repair is counted.
 */
export const DRIFTED = 'Drifted';
export const DriftReasons = {
  detected: 'DriftDetected',
  powerChanged: 'PowerStateChanged',
  missing: 'GuestMissing',
  repaired: 'DriftRepaired',
} as const;

/** What the host reports for a drifted guest: its power state, or that its userid is gone. */
export type HostFinding = PowerState | 'missing';

export function driftMessage(guest: ZGuest, finding: HostFinding): string {
  const userid = guest.spec.userid.toUpperCase();
  if (finding === 'missing') return `guest ${userid} is no longer defined on the host; the controller defines it again`;
  return `guest ${userid} is ${finding} on the host, status said ${guest.status?.powerState ?? 'nothing'}; the controller brings it back to spec`;
}

/**
 * The Drifted condition a reconcile reports: True with the finding while a drift fact is reported;
 * absent until a drift was ever seen; once seen it stays True until the guest is Ready again, then
 * False with the time of the repair in its transition.
 */
export function driftCondition(previous: Condition[] | undefined, ready: ConditionInput, drift?: DriftFact): ConditionInput | undefined {
  if (drift) return { type: DRIFTED, status: 'True', reason: drift.finding === 'missing' ? DriftReasons.missing : DriftReasons.powerChanged, message: drift.message };
  const prev = findCondition(previous, DRIFTED);
  if (!prev) return undefined;
  if (prev.status !== 'True') return { type: DRIFTED, status: prev.status, reason: prev.reason, message: prev.message };
  if (ready.status !== 'True') return { type: DRIFTED, status: 'True', reason: prev.reason, message: prev.message };
  return { type: DRIFTED, status: 'False', reason: DriftReasons.repaired, message: `repaired: ${ready.message} (drift was: ${prev.message})` };
}

/** This status write turns a detected drift into a repaired one. */
export function isDriftRepair(before: ZGuestStatus | undefined, after: ZGuestStatus): boolean {
  return findCondition(before?.conditions, DRIFTED)?.status === 'True' && findCondition(after.conditions, DRIFTED)?.status === 'False';
}
