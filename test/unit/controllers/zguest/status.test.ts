import type { Condition } from '../../../../src/api/index.js';
import type { ResolvedZGuest as ZGuest } from '../../../../src/controllers/zguest/class.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { computeZGuestStatus, type StatusInput } from '../../../../src/controllers/zguest/status.js';
import type { Plan, Problem } from '../../../../src/controllers/zguest/steps.js';
import { HypervisorError } from '../../../../src/errors.js';
import type { GuestState } from '../../../../src/hypervisor/port.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = new Date('2026-01-02T00:00:00.000Z');

const owned: Plan = { steps: [], problems: [], ownership: 'owned' };
const withProblem = (problem: Problem, ownership: Plan['ownership'] = 'owned'): Plan => ({ steps: [], problems: [problem], ownership });

function status(guest: ZGuest, observed: GuestState | undefined, extra: Partial<StatusInput> = {}) {
  return computeZGuestStatus({ guest, hostName: 'default', observed, plan: owned, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now: T1, ...extra });
}

function cond(conditions: Condition[] | undefined, type: string): string {
  const c = conditions?.find((x) => x.type === type);
  return c ? `${c.status} ${c.reason}` : 'absent';
}

function summary(s: ReturnType<typeof status>) {
  return {
    phase: s.phase,
    ready: cond(s.conditions, 'Ready'),
    synced: cond(s.conditions, 'Synced'),
    provisioned: cond(s.conditions, 'Provisioned'),
    restart: cond(s.conditions, 'RestartRequired'),
  };
}

const deleting = { deletionTimestamp: '2026-02-01T00:00:00Z' };
const diskRemoval: Problem = { reason: 'DiskRemovalRequiresStop', severity: 'blocked', message: 'm' };

describe('computeZGuestStatus: phase and conditions', () => {
  it.each<[string, ZGuest, GuestState | undefined, Partial<StatusInput>, ReturnType<typeof summary>]>([
    ['a converged running guest is Ready', aGuest(), anObservedGuest(),
      {}, { phase: 'Running', ready: 'True GuestRunning', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a guest stopped on purpose is Ready, not Progressing', aGuest({ powerState: 'Off' }), anObservedGuest({ power: 'off' }),
      {}, { phase: 'Stopped', ready: 'True GuestStopped', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a paused guest that should be paused is Ready', aGuest({ powerState: 'Paused' }), anObservedGuest({ power: 'paused' }),
      {}, { phase: 'Paused', ready: 'True GuestPaused', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a guest still off that should run is Starting', aGuest(), anObservedGuest({ power: 'off' }),
      { pending: true }, { phase: 'Starting', ready: 'False Starting', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a running guest that should be off is Stopping', aGuest({ powerState: 'Off' }), anObservedGuest(),
      { pending: true }, { phase: 'Stopping', ready: 'False Stopping', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a guest not yet defined is Provisioning', aGuest(), undefined,
      { pending: true }, { phase: 'Provisioning', ready: 'False Provisioning', synced: 'True ReconcileSuccess', provisioned: 'False NotCreated', restart: 'False ActiveConfigMatchesSpec' }],
    ['a guest with a missing disk is Provisioning', aGuest({ disks: [{ size: '1G' }, { size: '1G' }] }), anObservedGuest({ disks: ['0100'] }),
      { pending: true }, { phase: 'Provisioning', ready: 'False Provisioning', synced: 'True ReconcileSuccess', provisioned: 'False DisksMissing', restart: 'False ActiveConfigMatchesSpec' }],
    ['a userid conflict shows as Conflict and hides the foreign guest', aGuest(), anObservedGuest({ owner: null }),
      { plan: withProblem({ reason: 'UseridConflict', severity: 'conflict', message: 'm' }, 'foreign') },
      { phase: 'Conflict', ready: 'False UseridConflict', synced: 'False UseridConflict', provisioned: 'False UseridConflict', restart: 'False ActiveConfigMatchesSpec' }],
    ['an impossible resize is Failed', aGuest({ vcpus: 40 }), anObservedGuest({ active: { cpus: 40, memoryMB: 2048 } }),
      { plan: withProblem({ reason: 'InvalidResize', severity: 'error', message: 'm' }) },
      { phase: 'Failed', ready: 'False InvalidResize', synced: 'False InvalidResize', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a blocked disk removal keeps the phase but is not Synced', aGuest(), anObservedGuest(),
      { plan: withProblem(diskRemoval) }, { phase: 'Running', ready: 'False DiskRemovalRequiresStop', synced: 'False DiskRemovalRequiresStop', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['an unknown host is Failed with Provisioned Unknown', aGuest(), undefined,
      { plan: withProblem({ reason: 'HostNotFound', severity: 'error', message: 'm' }, 'unknown') },
      { phase: 'Failed', ready: 'False HostNotFound', synced: 'False HostNotFound', provisioned: 'Unknown HostNotFound', restart: 'False ActiveConfigMatchesSpec' }],
    ['a guest being deleted is Deleting', aGuest({}, deleting), anObservedGuest(),
      {}, { phase: 'Deleting', ready: 'False Deleting', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['a shrink on a running guest requires a restart but stays Ready', aGuest({ vcpus: 1 }), anObservedGuest({ cpus: 1, active: { cpus: 2, memoryMB: 2048 } }),
      {}, { phase: 'Running', ready: 'True GuestRunning', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'True CpuChangePendingRestart' }],
    ['a memory change on a running guest requires a restart', aGuest({ memory: '4G' }), anObservedGuest({ memory: '4G', active: { cpus: 2, memoryMB: 2048 } }),
      {}, { phase: 'Running', ready: 'True GuestRunning', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'True MemoryChangePendingRestart' }],
    ['a stopped guest never requires a restart', aGuest({ vcpus: 4, powerState: 'Off' }), anObservedGuest({ power: 'off', cpus: 4 }),
      {}, { phase: 'Stopped', ready: 'True GuestStopped', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
    ['pending work keeps Ready False even when the power matches', aGuest(), anObservedGuest(),
      { pending: true }, { phase: 'Running', ready: 'False Progressing', synced: 'True ReconcileSuccess', provisioned: 'True Provisioned', restart: 'False ActiveConfigMatchesSpec' }],
  ])('%s', (_label, guest, observed, extra, expected) => {
    expect(summary(status(guest, observed, extra))).toEqual(expected);
  });
});

describe('computeZGuestStatus: fields', () => {
  const failure = new HypervisorError('Image_Create_DM', 400, 8, 'image definition already exists');

  it('records a terminal hypervisor failure as lastError and phase Failed', () => {
    const s = status(aGuest(), undefined, { failure });
    expect(s.lastError).toEqual({ overallRC: 8, rc: 400, rs: 8, modID: 1, errmsg: 'image definition already exists' });
    expect(s.phase).toBe('Failed');
    expect(cond(s.conditions, 'Synced')).toBe('False HypervisorError');
  });

  it('clears lastError once a reconcile succeeds', () => {
    const s = status(aGuest({}, { status: { lastError: failure.toFields() } }), anObservedGuest());
    expect(s.lastError).toBeUndefined();
  });

  it('reports observed power, CPUs, memory, host and generation', () => {
    const s = status(aGuest({}, { generation: 7 }), anObservedGuest({ cpus: 4, memory: '4G', active: { cpus: 3, memoryMB: 4096 } }), { hostName: 'zhost1' });
    expect(s).toMatchObject({ observedGeneration: 7, host: 'zhost1', powerState: 'on', vcpus: 3, memory: '4G' });
    expect(s.conditions?.every((c) => c.observedGeneration === 7)).toBe(true);
  });

  it('reports created disks in the feilong output form', () => {
    const guest = aGuest({ disks: [{ size: '10G', boot: true }, { size: '1G' }, { size: '2G', format: 'xfs', pool: 'FBA:P2' }, { size: '3G' }] });
    expect(status(guest, anObservedGuest({ disks: ['0100', '0101', '0102'] })).disks).toEqual([
      { vdev: '0100', size: '10G', format: 'none', isBootDisk: true, diskPool: 'ECKD:POOL1' },
      { vdev: '0101', size: '1G', diskPool: 'ECKD:POOL1' },
      { vdev: '0102', size: '2G', format: 'xfs', diskPool: 'FBA:P2' },
    ]);
  });

  it('keeps the record of a disk that left the spec until it is removed', () => {
    const old = { vdev: '0101', size: '1G', diskPool: 'ECKD:POOL1' };
    const guest = aGuest({ disks: [{ size: '1G' }] }, { status: { disks: [{ vdev: '0100', size: '1G', diskPool: 'ECKD:POOL1' }, old] } });
    expect(status(guest, anObservedGuest({ disks: ['0100', '0101'] }), { plan: withProblem(diskRemoval) }).disks?.map((d) => d.vdev)).toEqual(['0100', '0101']);
    expect(status(guest, anObservedGuest({ disks: ['0100'] })).disks?.map((d) => d.vdev)).toEqual(['0100']);
  });

  it('records handled reboot and reset tokens', () => {
    const s = status(aGuest({}, { status: { lastHandledResetAt: 'r0' } }), anObservedGuest(), {
      applied: [{ op: 'ackToken', token: 'reboot', value: 'r1', cycled: true }],
    });
    expect(s).toMatchObject({ lastHandledRebootAt: 'r1', lastHandledResetAt: 'r0' });
  });

  it('keeps lastTransitionTime while a condition keeps its status', () => {
    const first = status(aGuest(), anObservedGuest());
    const ready = first.conditions?.find((c) => c.type === 'Ready');
    const earlier = { ...first, conditions: first.conditions?.map((c) => ({ ...c, lastTransitionTime: T0, message: 'old' })) };
    const again = status(aGuest({}, { status: earlier }), anObservedGuest());
    expect(ready?.lastTransitionTime).toBe(T1.toISOString());
    expect(again.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(T0);
    const flipped = status(aGuest({ powerState: 'Off' }, { status: earlier }), anObservedGuest(), { pending: true });
    expect(flipped.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(T1.toISOString());
  });
});
