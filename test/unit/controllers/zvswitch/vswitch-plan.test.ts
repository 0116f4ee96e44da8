import { API_VERSION, VSWITCH_FINALIZER, type ZVswitch, type ZVswitchSpec, type ZVswitchStatus } from '../../../../src/api/index.js';
import { planZVswitch } from '../../../../src/controllers/zvswitch/plan.js';
import { computeZVswitchStatus } from '../../../../src/controllers/zvswitch/status.js';
import { HypervisorError } from '../../../../src/errors.js';
import type { VswitchDetails } from '../../../../src/hypervisor/vswitch-port.js';

function aVswitch(spec: Partial<ZVswitchSpec> = {}, status?: ZVswitchStatus, deleting = false): ZVswitch {
  return {
    apiVersion: API_VERSION, kind: 'ZVswitch',
    metadata: { name: 'vsw1', generation: 2, finalizers: [VSWITCH_FINALIZER], ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { switchName: 'VSW1', ...spec }, ...(status ? { status } : {}),
  };
}

function observed(users: Record<string, string[]> = {}): VswitchDetails {
  const authorized_users = Object.fromEntries(Object.entries(users).map(([u, v]) => [u, { port_num: '0000', prom_mode: 'NOPROM', osd_sim: 'NOOSDSIM', vlan_count: String(v.length), vlan_ids: v }]));
  return { switch_name: 'VSW1', switch_status: 'OSA device ready.', vlan_awareness: 'AWARE', authorized_users, real_devices: {}, adapters: {} } as unknown as VswitchDetails;
}

describe('planZVswitch', () => {
  it('adds the finalizer first', () => {
    const v = aVswitch();
    v.metadata.finalizers = [];
    expect(planZVswitch({ vswitch: v, observed: undefined })).toEqual([{ op: 'addFinalizer' }]);
  });

  it('claims, creates and grants every user when the switch is missing', () => {
    expect(planZVswitch({ vswitch: aVswitch({ authorizedUsers: [{ userid: 'linux01', vlanIds: [10, -1] }] }), observed: undefined }).map((s) => s.op))
      .toEqual(['claim', 'create', 'grant']);
  });

  it.each([
    ['nothing when converged', { LINUX01: ['0010'] }, [{ userid: 'LINUX01', vlanIds: [10] }], undefined, []],
    ['a grant of the missing VLAN ids', { LINUX01: ['0010'] }, [{ userid: 'LINUX01', vlanIds: [10, 20] }], undefined, [{ op: 'grant', userid: 'LINUX01', vlanIds: [20] }]],
    ['revoke and grant again to drop a VLAN id', { LINUX01: ['0010', '0020'] }, [{ userid: 'LINUX01', vlanIds: [10] }], undefined,
      [{ op: 'revoke', userid: 'LINUX01' }, { op: 'grant', userid: 'LINUX01', vlanIds: [10] }]],
    ['a revoke of a user it granted before', { LINUX01: [] }, [], { authorizedUsers: [{ userid: 'LINUX01', vlanIds: [] }] }, [{ op: 'revoke', userid: 'LINUX01' }]],
    ['no revoke of a user granted by someone else', { OTHER: [] }, [], undefined, []],
  ])('plans %s', (_name, have, users, status, expected) => {
    expect(planZVswitch({ vswitch: aVswitch({ authorizedUsers: users }, status as ZVswitchStatus | undefined), observed: observed(have as Record<string, string[]>) })).toEqual(expected);
  });

  it('deletes only a switch it owns, then releases the finalizer', () => {
    expect(planZVswitch({ vswitch: aVswitch({}, { owned: true }, true), observed: observed() })).toEqual([{ op: 'delete', name: 'VSW1' }, { op: 'removeFinalizer' }]);
    expect(planZVswitch({ vswitch: aVswitch({}, { owned: false }, true), observed: observed() })).toEqual([{ op: 'removeFinalizer' }]);
  });
});

describe('computeZVswitchStatus', () => {
  const now = new Date('2026-01-02T00:00:00Z');

  it('is Ready with the details and the managed grants once converged', () => {
    const s = computeZVswitchStatus({ vswitch: aVswitch({ authorizedUsers: [{ userid: 'LINUX01' }] }), hostName: 'default', observed: observed({ LINUX01: [], OTHER: [] }), now });
    expect(s).toMatchObject({ phase: 'Ready', switchName: 'VSW1', observedGeneration: 2, authorizedUsers: [{ userid: 'LINUX01', vlanIds: [] }] });
    expect(s.conditions?.map((c) => [c.type, c.status])).toEqual([['Ready', 'True'], ['Synced', 'True']]);
    expect(s.details).toMatchObject({ switch_status: 'OSA device ready.' });
  });

  it('records a terminal failure as Synced=False with the SMAPI fields', () => {
    const failure = new HypervisorError('Virtual_Network_Vswitch_Set_Extended', 396, 2846, 'VLAN unaware');
    const s = computeZVswitchStatus({ vswitch: aVswitch({ authorizedUsers: [{ userid: 'LINUX01', vlanIds: [5] }] }), hostName: 'default', observed: observed(), failure, now });
    expect(s.phase).toBe('Failed');
    expect(s.lastError).toEqual({ overallRC: 8, modID: 1, rc: 396, rs: 2846, errmsg: 'VLAN unaware' });
    expect(s.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'False', reason: 'HypervisorError' });
  });
});
