/**
 * Approval mode (ZHost spec.changePolicy: Approve): the host steps of a plan wait until the guest carries
 * the annotation zvm.dev/approved-plan naming the plan's hash. The hash covers the spec generation and the
 * steps, so a newer spec or a changed host makes a new plan that needs its own approval.
 */
import { createHash } from 'node:crypto';
import type { ZGuest, ZGuestStatus } from '../../api/index.js';
import { mergeConditions } from '../conditions.js';
import { isHypervisorStep, type Step } from './steps.js';

export const APPROVED_PLAN_ANNOTATION = 'zvm.dev/approved-plan';
export const PENDING_APPROVAL = 'PendingApproval';

export type PendingPlan = NonNullable<ZGuestStatus['pendingPlan']>;

export type ApprovalGate = { hold: false; approved?: string } | { hold: true; pending: PendingPlan };

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
  if (guest.metadata.annotations?.[APPROVED_PLAN_ANNOTATION] === hash) return { hold: false, approved: hash };
  return { hold: true, pending: { hash, generation, steps: held } };
}

/** Pure: the status with the held plan and the PendingApproval condition (True while held, False after). */
export function withApproval(status: ZGuestStatus, gate: ApprovalGate, policy: string | undefined, now: Date): ZGuestStatus {
  const { pendingPlan: _old, ...rest } = status;
  if (policy !== 'Approve') return { ...rest, conditions: rest.conditions?.filter((c) => c.type !== PENDING_APPROVAL) };
  const condition = gate.hold
    ? { type: PENDING_APPROVAL, status: 'True' as const, reason: 'AwaitingApproval', message: `plan ${gate.pending.hash} (${gate.pending.steps.length} host steps) waits for annotation ${APPROVED_PLAN_ANNOTATION}=${gate.pending.hash}` }
    : { type: PENDING_APPROVAL, status: 'False' as const, reason: 'NothingPending', message: 'no host change waits for approval' };
  return { ...rest, ...(gate.hold ? { pendingPlan: gate.pending } : {}), conditions: mergeConditions(rest.conditions, [condition], now.toISOString(), status.observedGeneration) };
}

interface ManagedField {
  manager?: string;
  fieldsV1?: { 'f:metadata'?: { 'f:annotations'?: Record<string, unknown> } };
}

/** Who wrote the approval annotation, where the apiserver says it (managedFields); undefined elsewhere. */
export function approverOf(guest: ZGuest): string | undefined {
  const fields = (guest.metadata as { managedFields?: ManagedField[] }).managedFields ?? [];
  return fields.find((f) => f.fieldsV1?.['f:metadata']?.['f:annotations']?.[`f:${APPROVED_PLAN_ANNOTATION}`] !== undefined)?.manager;
}
