/**
 * Approval mode (ZHost spec.changePolicy: Approve): the host steps of a plan wait until the guest carries
 * the annotation zvm.dev/approved-plan naming the plan's hash. The hash covers the spec generation and the
 * steps, so a newer spec or a changed host makes a new plan that needs its own approval.
 */
import { createHash } from 'node:crypto';
import type { ZGuest, ZGuestStatus } from '../../api/index.js';
import { mergeConditions } from '../conditions.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { isHypervisorStep, type Step } from './steps.js';

export const APPROVED_PLAN_ANNOTATION = 'zvm.dev/approved-plan';
export const PENDING_APPROVAL = 'PendingApproval';

export type PendingPlan = NonNullable<ZGuestStatus['pendingPlan']>;

/** superseded: the hash an approval names that is not the current plan's (a newer spec or host state made a new plan) */
export type ApprovalGate = { hold: false; approved?: string } | { hold: true; pending: PendingPlan; superseded?: string };

/** 'setDirectoryCpus count=4': a step as one line, its parameters in a stable order. */
export function stepText(step: Step): string {
  const { op, ...args } = step;
  const parts = Object.entries(args).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return [op, ...parts].join(' ');
}

export function planHash(generation: number, steps: string[]): string {
  return createHash('sha256').update(JSON.stringify({ generation, steps })).digest('hex').slice(0, 16);
}

/** Pure: whether the plan's host steps may run now. Store-only plans never wait. */
export function approvalGate(guest: ZGuest, steps: Step[], policy: string | undefined): ApprovalGate {
  if (policy !== 'Approve') return { hold: false };
  const held = steps.filter(isHypervisorStep).map(stepText);
  if (held.length === 0) return { hold: false };
  const generation = guest.metadata.generation ?? 0;
  const hash = planHash(generation, held);
  const approval = guest.metadata.annotations?.[APPROVED_PLAN_ANNOTATION];
  if (approval === hash) return { hold: false, approved: hash };
  return { hold: true, pending: { hash, generation, steps: held }, ...(approval ? { superseded: approval } : {}) };
}

function heldCondition(gate: Extract<ApprovalGate, { hold: true }>): { reason: string; message: string } {
  const { hash, steps } = gate.pending;
  const waits = `plan ${hash} (${steps.length} host steps) waits for annotation ${APPROVED_PLAN_ANNOTATION}=${hash}`;
  if (!gate.superseded) return { reason: 'AwaitingApproval', message: waits };
  return { reason: 'ApprovalSuperseded', message: `the approval names plan ${gate.superseded}, which is no longer the plan: ${waits}` };
}

/** Pure: the status with the held plan and the PendingApproval condition (True while held, False after). */
export function withApproval(status: ZGuestStatus, gate: ApprovalGate, policy: string | undefined, now: Date): ZGuestStatus {
  const { pendingPlan: _old, ...rest } = status;
  if (policy !== 'Approve') return { ...rest, conditions: rest.conditions?.filter((c) => c.type !== PENDING_APPROVAL) };
  const condition = gate.hold
    ? { type: PENDING_APPROVAL, status: 'True' as const, ...heldCondition(gate) }
    : { type: PENDING_APPROVAL, status: 'False' as const, reason: 'NothingPending', message: 'no host change waits for approval' };
  return { ...rest, ...(gate.hold ? { pendingPlan: gate.pending } : {}), conditions: mergeConditions(rest.conditions, [condition], now.toISOString(), status.observedGeneration) };
}

/** Where the approval is written, as a field path (managedFields name its writer). */
export const APPROVAL_FIELD = ['metadata', 'annotations', APPROVED_PLAN_ANNOTATION] as const;

/**
 * Who approved: the field manager that wrote the annotation, where the store records field managers
 * (a cluster's managedFields: the client's manager name, e.g. kubectl-annotate, not the user; the user
 * is in the apiserver's audit log). Standalone records none: undefined.
 */
export async function approverOf(store: StateStore, guest: ZGuest): Promise<string | undefined> {
  return store.fieldManagerOf?.('ZGuest', keyOf(guest), APPROVAL_FIELD);
}
