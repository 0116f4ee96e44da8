import type { ZGuest } from '../../../../src/api/index.js';
import { approvalGate, APPROVED_PLAN_ANNOTATION, withApproval } from '../../../../src/controllers/zguest/approval.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';

const guest = (generation: number, approved?: string): ZGuest => ({
  apiVersion: 'zvm.dev/v1beta1',
  kind: 'ZGuest',
  metadata: { name: 'g', namespace: 'default', generation, ...(approved ? { annotations: { [APPROVED_PLAN_ANNOTATION]: approved } } : {}) },
  spec: { userid: 'G', vcpus: 2, memory: '2G' },
});
const steps: Step[] = [{ op: 'setDirectoryCpus', count: 4 }, { op: 'ackToken', token: 'reboot', value: 'x', cycled: false }];

describe('approval gate', () => {
  it('never holds under Auto, nor a plan of store writes only', () => {
    expect(approvalGate(guest(1), steps, undefined)).toEqual({ hold: false });
    expect(approvalGate(guest(1), [{ op: 'addFinalizer' }], 'Approve')).toEqual({ hold: false });
  });

  it('holds the host steps under a hash that a newer generation changes, and lets the named hash through', () => {
    const held = approvalGate(guest(1), steps, 'Approve');
    if (!held.hold) throw new Error('expected a hold');
    expect(held.pending).toMatchObject({ generation: 1, steps: ['setDirectoryCpus count=4'] });
    const newer = approvalGate(guest(2, held.pending.hash), steps, 'Approve');
    expect(newer.hold && newer.pending.hash).not.toBe(held.pending.hash);
    expect(approvalGate(guest(1, held.pending.hash), steps, 'Approve')).toEqual({ hold: false, approved: held.pending.hash });
  });

  it('names the approval it holds against when that names an older plan', () => {
    const held = approvalGate(guest(1), steps, 'Approve');
    if (!held.hold) throw new Error('expected a hold');
    const superseded = approvalGate(guest(2, held.pending.hash), steps, 'Approve');
    expect(superseded).toMatchObject({ hold: true, superseded: held.pending.hash });
    const status = withApproval({}, superseded, 'Approve', new Date(0));
    expect(status.conditions?.[0]).toMatchObject({ type: 'PendingApproval', status: 'True', reason: 'ApprovalSuperseded' });
    expect(withApproval({}, held, 'Approve', new Date(0)).conditions?.[0]).toMatchObject({ reason: 'AwaitingApproval' });
  });
});
