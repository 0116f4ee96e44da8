import type { GuestNic, ZGuest } from '../../../../src/api/index.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { macIdOf, overlappingNics, planNics } from '../../../../src/controllers/zguest/plan-nics.js';
import { planZGuest } from '../../../../src/controllers/zguest/plan.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';
import type { DirectoryNic, GuestState } from '../../../../src/hypervisor/port.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

function summary(step: Step): string {
  switch (step.op) {
    case 'createNic':
      return `createNic ${step.vdev}${step.macId ? ` ${step.macId}` : ''}`;
    case 'deleteNic':
    case 'uncoupleNic':
      return `${step.op} ${step.vdev}`;
    case 'coupleNic':
      return `coupleNic ${step.vdev} ${step.vswitch}`;
    default:
      return step.op;
  }
}

function withNics(observed: GuestState, nics: DirectoryNic[]): GuestState {
  return { ...observed, directory: { ...observed.directory, nics } };
}

function guestWith(nics: GuestNic[], recorded: string[] = []): ZGuest {
  return aGuest({ nics }, recorded.length > 0 ? { status: { nics: recorded.map((vdev) => ({ vdev })) } } : {});
}

const stepsOf = (guest: ZGuest, observed: GuestState | undefined) => planNics(guest, observed).steps.map(summary);

describe('planNics', () => {
  it.each<[string, ZGuest, DirectoryNic[], string[]]>([
    ['creates a NIC of the spec that the directory lacks', guestWith([{ vdev: '1000' }]), [], ['createNic 1000']],
    ['creates it with the last 6 digits of the MAC as MACID', guestWith([{ vdev: '1000', mac: '02:00:01:ab:cd:ef' }]), [], ['createNic 1000 ABCDEF']],
    ['creates and couples a NIC that names a vswitch', guestWith([{ vdev: '1000', vswitch: 'vsw1' }]), [], ['createNic 1000', 'coupleNic 1000 VSW1']],
    ['couples an existing NIC to the spec vswitch', guestWith([{ vdev: '1000', vswitch: 'VSW1' }]), [{ vdev: '1000' }], ['coupleNic 1000 VSW1']],
    ['recouples a NIC to another vswitch', guestWith([{ vdev: '1000', vswitch: 'VSW2' }]), [{ vdev: '1000', vswitch: 'VSW1' }], ['coupleNic 1000 VSW2']],
    ['uncouples a NIC whose spec names no vswitch', guestWith([{ vdev: '1000' }]), [{ vdev: '1000', vswitch: 'VSW1' }], ['uncoupleNic 1000']],
    ['deletes a NIC that left the spec and that status recorded as ours', guestWith([], ['1000']), [{ vdev: '1000' }], ['deleteNic 1000']],
    ['never deletes a foreign NIC (not recorded in status)', guestWith([]), [{ vdev: '2000', vswitch: 'VSW1' }], []],
    ['does nothing when the directory matches', guestWith([{ vdev: '1000', vswitch: 'VSW1' }], ['1000']), [{ vdev: '1000', vswitch: 'VSW1' }], []],
    ['compares device numbers as 4 hex digits', guestWith([{ vdev: 'a00' }]), [{ vdev: '0A00' }], []],
    ['deletes before it creates, so a device range can be reused', guestWith([{ vdev: '1003' }], ['1000']), [{ vdev: '1000' }], ['deleteNic 1000', 'createNic 1003']],
  ])('%s', (_label, guest, nics, expected) => {
    expect(stepsOf(guest, withNics(anObservedGuest(), nics))).toEqual(expected);
  });

  it('plans the NICs of a guest that does not exist yet after it is created', () => {
    const guest = aGuest({ nics: [{ vdev: '1000', vswitch: 'VSW1' }], powerState: 'Off' });
    const steps = planZGuest({ guest, observed: undefined, defaults: DEFAULT_GUEST_DEFAULTS }).steps.map(summary);
    expect(steps).toEqual(['createGuest', 'createNic 1000', 'coupleNic 1000 VSW1']);
  });

  it('changes NICs of a running guest without stopping it (directory only)', () => {
    const guest = aGuest({ nics: [{ vdev: '1000' }] });
    const steps = planZGuest({ guest, observed: anObservedGuest({ power: 'on' }), defaults: DEFAULT_GUEST_DEFAULTS }).steps.map(summary);
    expect(steps).toEqual(['createNic 1000']);
  });

  it('reports overlapping NICs (3 devices each) as InvalidNics and plans nothing for them', () => {
    const guest = guestWith([{ vdev: '1000' }, { vdev: '1002' }]);
    const plan = planNics(guest, anObservedGuest());
    expect(plan.steps).toEqual([]);
    expect(plan.problems.map((p) => [p.reason, p.severity])).toEqual([['InvalidNics', 'error']]);
    expect(plan.problems[0].message).toContain('1000, 1002');
  });
});

describe('NIC helpers', () => {
  it('keeps the last 6 hex digits of a MAC, upper case', () => {
    expect(macIdOf('02:55:36:5d:48:57')).toBe('5D4857');
  });

  it('finds NICs closer than 3 device numbers', () => {
    expect(overlappingNics([{ vdev: '1000' }, { vdev: '1003' }, { vdev: '1005' }])).toEqual(['1003', '1005']);
    expect(overlappingNics([{ vdev: '1000' }, { vdev: '1003' }])).toEqual([]);
  });
});
