import { Annotations, DELETE_FOR_MOVE_ANNOTATION, OWNER_UID_ANNOTATION } from '../../../../src/api/index.js';
import type { ResolvedZGuest as ZGuest } from '../../../../src/controllers/zguest/class.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { planZGuest } from '../../../../src/controllers/zguest/plan.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';
import type { GuestState } from '../../../../src/hypervisor/port.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

/** One short line per step, so tables read like the plan. */
function summary(step: Step): string {
  switch (step.op) {
    case 'addDisk':
      return `addDisk ${step.disk.vdev}`;
    case 'removeDisk':
      return `removeDisk ${step.vdev}`;
    case 'setDirectoryCpus':
    case 'defineActiveCpus':
      return `${step.op} ${step.count}`;
    case 'rewriteDirectory':
      return `${step.op} ${step.memory ?? ''}${step.maxMemory ? ` max=${step.maxMemory}` : ''}${Object.keys(step.statements ?? {}).map((f) => ` ${f}`).join('')}${step.cpus !== undefined ? ` cpus=${step.cpus}` : ''}${step.share ? ` share=${step.share}` : ''}`;
    case 'ackToken':
      return `ackToken ${step.token}${step.cycled ? ' cycled' : ''}`;
    case 'stop':
      return step.token ? `stop for ${step.token}` : 'stop';
    case 'removeFinalizer':
      return step.leftOnHost ? 'removeFinalizer leftOnHost' : 'removeFinalizer';
    default:
      return step.op;
  }
}

function plan(guest: ZGuest, observed: GuestState | undefined, claimedBy?: string) {
  const p = planZGuest({ guest, observed, defaults: DEFAULT_GUEST_DEFAULTS, claimedBy });
  return { steps: p.steps.map(summary), problems: p.problems.map((x) => x.reason), ownership: p.ownership };
}

const twoDisks = { disks: [{ size: '10G', boot: true }, { size: '1G' }] };
const deleting = { deletionTimestamp: '2026-02-01T00:00:00Z' };

describe('planZGuest: finalizer and deletion', () => {
  it.each<[string, ZGuest, GuestState | undefined, string[]]>([
    ['adds the finalizer before touching z/VM', aGuest({}, { finalizers: [] }), undefined, ['addFinalizer']],
    ['deletes an owned guest, then releases the finalizer', aGuest({}, deleting), anObservedGuest(), ['deleteGuest', 'removeFinalizer']],
    ['only releases the finalizer when the guest is already gone', aGuest({}, deleting), undefined, ['removeFinalizer']],
    ['leaves the guest on the host with deletionPolicy Orphan', aGuest({ deletionPolicy: 'Orphan' }, deleting), anObservedGuest(), ['removeFinalizer leftOnHost']],
    ['never deletes a guest someone else created', aGuest({}, deleting), anObservedGuest({ owner: 'other-uid' }), ['removeFinalizer leftOnHost']],
    ['never deletes an unowned guest', aGuest({}, deleting), anObservedGuest({ owner: null }), ['removeFinalizer leftOnHost']],
    ['deletes an adopted guest', aGuest({ adopt: true }, deleting), anObservedGuest({ owner: null }), ['deleteGuest', 'removeFinalizer']],
    ['does nothing once the finalizer is gone', aGuest({}, { ...deleting, finalizers: [] }), anObservedGuest(), []],
    ['only releases the finalizer of the copy clusterctl move leaves behind', aGuest({}, { ...deleting, annotations: { [DELETE_FOR_MOVE_ANNOTATION]: '' } }), anObservedGuest(), ['removeFinalizer']],
    ['plans for a copy (a move, a restore) as for the original: its annotation names the mark', aGuest({}, { ...deleting, uid: 'uid-2', annotations: { [OWNER_UID_ANNOTATION]: 'uid-1' } }), anObservedGuest(), ['deleteGuest', 'removeFinalizer']],
    ['a new uid without the annotation does not own the guest', aGuest({}, { ...deleting, uid: 'uid-2' }), anObservedGuest(), ['removeFinalizer leftOnHost']],
  ])('%s', (_label, guest, observed, expected) => {
    expect(plan(guest, observed).steps).toEqual(expected);
  });

  it('does not delete a guest whose userid an older ZGuest claims', () => {
    expect(plan(aGuest({}, deleting), anObservedGuest(), 'other/g0').steps).toEqual(['removeFinalizer leftOnHost']);
  });
});

describe('planZGuest: userid claims', () => {
  it('reports a conflict with an older claimant and plans no hypervisor call', () => {
    expect(plan(aGuest(), undefined, 'ns2/older')).toEqual({ steps: [], problems: ['UseridConflict'], ownership: 'claimed' });
  });
  it('reports a conflict for an existing userid it did not create', () => {
    expect(plan(aGuest(), anObservedGuest({ owner: null }))).toEqual({ steps: [], problems: ['UseridConflict'], ownership: 'foreign' });
  });
  it('reports a conflict for a userid created by another resource', () => {
    expect(plan(aGuest(), anObservedGuest({ owner: 'uid-other' })).problems).toEqual(['UseridConflict']);
  });
  it('adopts an existing userid only when spec.adopt says so', () => {
    expect(plan(aGuest({ adopt: true }), anObservedGuest({ owner: null }))).toEqual({ steps: [], problems: [], ownership: 'adopted' });
  });
  it('recognises its own owner comment whatever the case', () => {
    expect(plan(aGuest({}, { uid: 'AbC-1' }), anObservedGuest({ owner: 'abc-1' })).ownership).toBe('owned');
  });
});

describe('planZGuest: create', () => {
  it.each<[string, Partial<ZGuest['spec']>, string[]]>([
    ['creates, adds the disks root first, then starts', twoDisks, ['createGuest', 'addDisk 0100', 'addDisk 0101', 'start']],
    ['creates without starting when powerState is Off', { ...twoDisks, powerState: 'Off' }, ['createGuest', 'addDisk 0100', 'addDisk 0101']],
    ['starts then pauses when powerState is Paused', { powerState: 'Paused' }, ['createGuest', 'start', 'pause']],
    ['honours explicit vdevs', { disks: [{ size: '1G', vdev: '200' }, { size: '1G' }] }, ['createGuest', 'addDisk 0200', 'addDisk 0101', 'start']],
  ])('%s', (_label, spec, expected) => {
    expect(plan(aGuest(spec), undefined).steps).toEqual(expected);
  });

  it('refuses a spec whose disks resolve to the same vdev', () => {
    expect(plan(aGuest({ disks: [{ size: '1G' }, { size: '1G', vdev: '0100' }] }), undefined)).toEqual({ steps: [], problems: ['InvalidDisks'], ownership: 'absent' });
  });

  it('resolves the definition and disks with host defaults and the owner comment', () => {
    const steps = planZGuest({ guest: aGuest({ ...twoDisks, account: 'ACC1', comments: ['hello'] }), observed: undefined, defaults: DEFAULT_GUEST_DEFAULTS }).steps;
    expect(steps[0]).toEqual({
      op: 'createGuest',
      definition: {
        userid: 'LINUX01', vcpus: 2, maxCpus: 32, memory: '2G', maxMemory: '64G', profile: 'OSDFLT', account: 'ACC1',
        comments: ['hello', 'ZVM-OPERATOR OWNER uid-1'], ipl: { device: '0100' },
      },
    });
    expect(steps[1]).toEqual({ op: 'addDisk', disk: { vdev: '0100', pool: 'ECKD:POOL1', size: '10G', format: 'none' } });
    expect(steps[2]).toEqual({ op: 'addDisk', disk: { vdev: '0101', pool: 'ECKD:POOL1', size: '1G', format: 'ext4' } });
  });

  it('sets no IPL when neither a boot disk nor spec.ipl is given', () => {
    const steps = planZGuest({ guest: aGuest({ disks: [{ size: '1G' }] }), observed: undefined, defaults: DEFAULT_GUEST_DEFAULTS }).steps;
    expect(steps[0]).toMatchObject({ op: 'createGuest', definition: { userid: 'LINUX01' } });
    expect(steps[0].op === 'createGuest' && steps[0].definition.ipl).toBeUndefined();
  });
});

describe('planZGuest: converge an existing guest', () => {
  it.each<[string, Partial<ZGuest['spec']>, GuestState, string[], string[]?]>([
    ['does nothing when converged', twoDisks, anObservedGuest({ disks: ['0100', '0101'], ipl: '0100' }), []],
    ['adds only the missing disk after a crash', twoDisks, anObservedGuest({ disks: ['0100'], ipl: '0100' }), ['addDisk 0101']],
    ['removes a disk dropped from spec while off', { disks: [{ size: '1G' }], powerState: 'Off' }, anObservedGuest({ power: 'off', disks: ['0100', '0101'] }), ['removeDisk 0101']],
    ['waits to remove a disk until the guest is off', { disks: [{ size: '1G' }] }, anObservedGuest({ disks: ['0100', '0101'] }), [], ['DiskRemovalRequiresStop']],
    ['stops first, then removes the disk', { disks: [{ size: '1G' }], powerState: 'Off' }, anObservedGuest({ disks: ['0100', '0101'] }), ['stop', 'removeDisk 0101']],
    ['starts a stopped guest', {}, anObservedGuest({ power: 'off' }), ['start']],
    ['stops a running guest', { powerState: 'Off' }, anObservedGuest(), ['stop']],
    ['unpauses a paused guest', {}, anObservedGuest({ power: 'paused' }), ['unpause']],
    ['pauses a running guest', { powerState: 'Paused' }, anObservedGuest(), ['pause']],
    ['stops a paused guest', { powerState: 'Off' }, anObservedGuest({ power: 'paused' }), ['stop']],
    ['grows CPUs live on a running guest', { vcpus: 4 }, anObservedGuest(), ['setDirectoryCpus 4', 'defineActiveCpus 4']],
    ['grows CPUs in the directory only when Deferred', { vcpus: 4, resizePolicy: 'Deferred' }, anObservedGuest(), ['setDirectoryCpus 4']],
    ['shrinks CPUs in the directory only', { vcpus: 1 }, anObservedGuest(), ['setDirectoryCpus 1']],
    ['grows CPUs of a stopped guest in the directory only', { vcpus: 4, powerState: 'Off' }, anObservedGuest({ power: 'off' }), ['setDirectoryCpus 4']],
    ['defines missing active CPUs after the directory already changed', { vcpus: 4 }, anObservedGuest({ cpus: 4, active: { cpus: 2, memoryMB: 2048 } }), ['defineActiveCpus 4']],
    ['refuses more CPUs than MACHINE ESA allows', { vcpus: 40 }, anObservedGuest(), [], ['InvalidResize']],
    ['changes directory memory', { memory: '4G' }, anObservedGuest(), ['rewriteDirectory 4G']],
    ['writes CPUs with memory in one rewrite, then grows them live', { vcpus: 4, memory: '4G' }, anObservedGuest(), ['rewriteDirectory 4G cpus=4', 'defineActiveCpus 4']],
    ['writes a chosen share with memory in the same rewrite', { memory: '4G', share: 'relative 300' }, anObservedGuest(), ['rewriteDirectory 4G share=RELATIVE 300']],
    ['shrinks CPUs with memory in one rewrite', { vcpus: 1, memory: '1G' }, anObservedGuest(), ['rewriteDirectory 1G cpus=1']],
    ['treats 2048M and 2G as equal', { memory: '2048M' }, anObservedGuest(), []],
    ['refuses memory above the maximum storage', { memory: '8G', maxMemory: '4G' }, anObservedGuest({ maxMemory: '4G' }), [], ['InvalidResize']],
    ['writes every changed directory statement of a running guest in one rewrite', { account: 'ACCT2', comments: ['second'], maxCpus: 12, maxMemory: '4G' }, anObservedGuest(), ['rewriteDirectory  max=4G maxCpus account comments']],
    ['writes the max storage and the memory it allows in one rewrite', { memory: '8G', maxMemory: '16G' }, anObservedGuest({ maxMemory: '4G' }), ['rewriteDirectory 8G max=16G']],
    ['refuses more CPUs than the new MACHINE ESA allows, and writes that maximum', { vcpus: 8, maxCpus: 4 }, anObservedGuest(), ['rewriteDirectory  maxCpus'], ['InvalidResize']],
    ['leaves an adopted guest\'s statements its spec does not give', { adopt: true }, anObservedGuest({ owner: null, maxMemory: '4G', maxCpus: 8 }), []],
    ['writes an adopted guest\'s statements its spec gives', { adopt: true, account: 'A1' }, anObservedGuest({ owner: null }), ['rewriteDirectory  account']],
  ])('%s', (_label, spec, observed, steps, problems = []) => {
    expect(plan(aGuest(spec), observed)).toMatchObject({ steps, problems });
  });

  it('gives the live CPU step the count the guest has, so the host is not asked for it again', () => {
    const planned = planZGuest({ guest: aGuest({ vcpus: 4 }), observed: anObservedGuest({ cpus: 4, active: { cpus: 3, memoryMB: 2048 } }), defaults: DEFAULT_GUEST_DEFAULTS });
    expect(planned.steps).toEqual([{ op: 'defineActiveCpus', count: 4, active: 3 }]);
  });

  it('removes only disks it recorded as created from an adopted guest', () => {
    const guest = aGuest({ adopt: true, powerState: 'Off', disks: [{ size: '1G' }] }, {
      status: { disks: [{ vdev: '0102', size: '1G', diskPool: 'ECKD:POOL1' }] },
    });
    expect(plan(guest, anObservedGuest({ owner: null, power: 'off', disks: ['0100', '0101', '0102'] })).steps).toEqual(['removeDisk 0102']);
  });
});

describe('planZGuest: reboot and reset tokens', () => {
  const token = (annotation: string, value: string, status: ZGuest['status'] = {}) =>
    aGuest({}, { annotations: { [annotation]: value }, status });

  it.each<[string, ZGuest, GuestState, string[]]>([
    ['cycles a running guest for a new reboot token', token(Annotations.rebootRequestedAt, '2026-03-01T00:00:00Z'), anObservedGuest(), ['stop for reboot', 'start', 'ackToken reboot cycled']],
    ['cycles a running guest for a new reset token', token(Annotations.resetRequestedAt, '2026-03-01T00:00:00Z', { lastHandledResetAt: '2026-02-01T00:00:00Z' }), anObservedGuest(), ['stop for reset', 'start', 'ackToken reset cycled']],
    ['ignores a handled token', token(Annotations.rebootRequestedAt, '2026-03-01T00:00:00Z', { lastHandledRebootAt: '2026-03-01T00:00:00Z' }), anObservedGuest(), []],
    ['acknowledges an older token without acting', token(Annotations.rebootRequestedAt, '2026-01-01T00:00:00Z', { lastHandledRebootAt: '2026-03-01T00:00:00Z' }), anObservedGuest(), ['ackToken reboot']],
    ['acknowledges a token for a stopped guest by starting it once', token(Annotations.rebootRequestedAt, '2026-03-01T00:00:00Z'), anObservedGuest({ power: 'off' }), ['start', 'ackToken reboot']],
  ])('%s', (_label, guest, observed, expected) => {
    expect(plan(guest, observed).steps).toEqual(expected);
  });

  it('re-pauses a paused guest after a reset', () => {
    const guest = aGuest({ powerState: 'Paused' }, { annotations: { [Annotations.resetRequestedAt]: 'x' } });
    expect(plan(guest, anObservedGuest({ power: 'paused' })).steps).toEqual(['stop for reset', 'start', 'pause', 'ackToken reset cycled']);
  });

  it('applies a pending directory resize before the cycle so the new logon picks it up', () => {
    const guest = aGuest({ vcpus: 4 }, { annotations: { [Annotations.rebootRequestedAt]: 'now' } });
    expect(plan(guest, anObservedGuest()).steps).toEqual(['setDirectoryCpus 4', 'stop for reboot', 'start', 'ackToken reboot cycled']);
  });
});
