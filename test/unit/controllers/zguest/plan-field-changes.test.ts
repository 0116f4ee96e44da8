import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { planZGuest } from '../../../../src/controllers/zguest/plan.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const disk = { vdev: '0100', size: '1G', diskPool: 'ECKD:POOL1', isBootDisk: true, format: 'none' };

describe('planZGuest: fields a live guest cannot take', () => {
  it.each([
    ['size', { size: '2G', boot: true }, 'disks[0].size is immutable'],
    ['pool', { size: '1G', boot: true, pool: 'FBA:POOL2' }, 'disks[0].pool is immutable'],
    ['boot', { size: '1G' }, 'disks[0].boot is immutable'],
  ])('refuses a changed %s of a disk already made, naming the field, and writes nothing', (_f, changed, message) => {
    const guest = aGuest({ disks: [changed] }, { status: { disks: [disk] } });
    const plan = planZGuest({ guest, observed: anObservedGuest({ disks: ['0100'], ipl: '0100' }), defaults: DEFAULT_GUEST_DEFAULTS });
    expect(plan.steps).toEqual([]);
    expect(plan.problems).toEqual([expect.objectContaining({ reason: 'InvalidDisks', severity: 'error', message: expect.stringContaining(message) })]);
  });

  it('defines a NIC again when its MAC changes, and couples it again', () => {
    const observed = anObservedGuest();
    observed.directory.nics = [{ vdev: '1000', macId: 'AABBCC', vswitch: 'VSW1' }];
    const guest = aGuest({ nics: [{ vdev: '1000', mac: '02:00:00:dd:ee:ff', vswitch: 'vsw1' }] }, { status: { nics: [{ vdev: '1000' }] } });
    expect(planZGuest({ guest, observed, defaults: DEFAULT_GUEST_DEFAULTS }).steps).toEqual([
      { op: 'deleteNic', vdev: '1000' }, { op: 'createNic', vdev: '1000', macId: 'DDEEFF' }, { op: 'coupleNic', vdev: '1000', vswitch: 'VSW1' },
    ]);
  });
});
