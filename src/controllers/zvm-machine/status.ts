/** The status of a ZVMMachine, from its plan and guest (the one author of it; docs/code-conventions.md §1). Pure. */
import type { ZGuest, ZVMMachine, ZVMMachineStatus } from '../../api/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';
import { addressesOf } from './facts.js';
import { MachineWaits, type MachinePlan } from './plan.js';

export function computeMachineStatus(zm: ZVMMachine, plan: MachinePlan, guest: ZGuest | undefined, now: Date): ZVMMachineStatus {
  const before = zm.status ?? {};
  // Cluster API never expects provisioned to go back to false
  const provisioned = before.initialization?.provisioned === true || !plan.waiting;
  const paused = plan.waiting?.reason === MachineWaits.paused;
  const ready: ConditionInput = plan.waiting && !(provisioned && paused)
    ? { type: 'Ready', status: 'False', reason: plan.waiting.reason, message: plan.waiting.message }
    : { type: 'Ready', status: 'True', reason: 'GuestRunning', message: `guest ${plan.userid ?? before.userid ?? ''} is logged on` };
  const conditions: ConditionInput[] = [
    ready,
    { type: 'Paused', status: paused ? 'True' : 'False', reason: paused ? 'Paused' : 'NotPaused', message: paused ? plan.waiting!.message : 'reconciling' },
  ];
  const status: ZVMMachineStatus = {
    ...before,
    observedGeneration: zm.metadata.generation,
    conditions: mergeConditions(before.conditions, conditions, now.toISOString(), zm.metadata.generation),
    phase: zm.metadata.deletionTimestamp ? 'Deleting' : provisioned ? 'Provisioned' : plan.waiting?.reason === MachineWaits.guestFailed ? 'Failed' : 'Provisioning',
  };
  if (provisioned) status.initialization = { provisioned: true };
  const host = plan.host ?? before.failureDomain;
  if (host) status.failureDomain = host;
  if (plan.userid) status.userid = plan.userid;
  if (guest) status.guest = guest.metadata.name;
  if (guest) status.addresses = addressesOf(zm, guest);
  return status;
}
