import { API_VERSION, VOLUME_FINALIZER, type ZVolume, type ZVolumeStatus } from '../../../../src/api/index.js';
import { planZVolume } from '../../../../src/controllers/zvolume/plan.js';

function aVolume(opts: { ours?: boolean; deleting?: boolean; status?: ZVolumeStatus } = {}): ZVolume {
  return {
    apiVersion: API_VERSION, kind: 'ZVolume',
    metadata: {
      name: 'vol1', namespace: 'default', generation: 3, finalizers: opts.ours === false ? [] : [VOLUME_FINALIZER],
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { assignerId: 'linux01', fcps: ['1a00', '1b00'], targetWwpns: ['0x5005076802100c1b'], lun: '0x0000000000000000', osVersion: 'rhel9.2', multipath: true },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

const phase = { assignerId: 'LINUX01', fcps: '1a00,1b00' };

describe('planZVolume', () => {
  it('puts the finalizer on before the attach', () => {
    expect(planZVolume(aVolume({ ours: false }))).toEqual([{ op: 'addFinalizer' }, { op: 'attach', ...phase }]);
  });

  it('attaches once per generation: a generation that ended Attached or Failed waits for a spec change', () => {
    expect(planZVolume(aVolume())).toEqual([{ op: 'attach', ...phase }]);
    expect(planZVolume(aVolume({ status: { observedGeneration: 3, phase: 'Attached' } }))).toEqual([]);
    expect(planZVolume(aVolume({ status: { observedGeneration: 3, phase: 'Failed' } }))).toEqual([]);
    expect(planZVolume(aVolume({ status: { observedGeneration: 2, phase: 'Attached' } }))).toEqual([{ op: 'attach', ...phase }]);
  });

  it('detaches, then releases, a deleted volume it holds; one it does not hold is left alone', () => {
    expect(planZVolume(aVolume({ deleting: true }))).toEqual([{ op: 'detach', ...phase }, { op: 'removeFinalizer' }]);
    expect(planZVolume(aVolume({ deleting: true, ours: false }))).toEqual([]);
  });
});
