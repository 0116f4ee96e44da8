import type { ResolvedGuestSpec } from '../../../../src/controllers/zguest/class.js';
import { computeConfiguredDisks, computeNetworkCondition, computeNicStatus } from '../../../../src/controllers/zguest/status-network.js';
import type { DirectoryNic, GuestState } from '../../../../src/hypervisor/port.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

function observedWith(nics: DirectoryNic[], disks: string[] = []): GuestState {
  const o = anObservedGuest({ disks });
  return { ...o, directory: { ...o.directory, nics } };
}

const network: ResolvedGuestSpec['network'] = { osVersion: 'rhel8.6', interfaces: [{ nicVdev: '1000', ipAddr: '10.0.0.5', cidr: '10.0.0.0/24' }] };

describe('computeNicStatus', () => {
  it('lists the managed NICs as the directory shows them, with the spec MAC, VLAN and nic id', () => {
    const guest = aGuest({ nics: [{ vdev: '1000', mac: '02:00:01:ab:cd:ef', vswitch: 'vsw1', vlan: 100, nicId: 'port-1' }] });
    const observed = observedWith([{ vdev: '1000', vswitch: 'VSW1', macId: 'ABCDEF' }]);
    expect(computeNicStatus(guest, observed)).toEqual([{ vdev: '1000', vswitch: 'VSW1', mac: '02:00:01:ab:cd:ef', vlan: 100, nicId: 'port-1' }]);
  });

  it('omits the VLAN while the NIC is not yet coupled to the spec vswitch', () => {
    const guest = aGuest({ nics: [{ vdev: '1000', vswitch: 'VSW1', vlan: 100 }] });
    expect(computeNicStatus(guest, observedWith([{ vdev: '1000' }]))).toEqual([{ vdev: '1000' }]);
  });

  it('keeps a NIC recorded earlier while it is still in the directory, and never lists a foreign one', () => {
    const guest = aGuest({ nics: [] }, { status: { nics: [{ vdev: '1000' }] } });
    const observed = observedWith([{ vdev: '1000' }, { vdev: '2000', vswitch: 'OTHER' }]);
    expect(computeNicStatus(guest, observed)).toEqual([{ vdev: '1000' }]);
  });

  it('is an empty list for a guest without NICs and undefined when the guest is not on the host', () => {
    expect(computeNicStatus(aGuest(), observedWith([]))).toEqual([]);
    expect(computeNicStatus(aGuest(), undefined)).toBeUndefined();
  });
});

describe('computeNetworkCondition', () => {
  it('is True once every interface NIC exists, and says the OS files are not generated', () => {
    const c = computeNetworkCondition(aGuest({ network }), observedWith([{ vdev: '1000' }]));
    expect(c).toMatchObject({ type: 'NetworkConfigured', status: 'True', reason: 'InterfacesRecorded' });
    expect(c.message).toContain('not generated');
  });

  it('is False while an interface NIC is missing', () => {
    expect(computeNetworkCondition(aGuest({ network }), observedWith([]))).toMatchObject({ status: 'False', reason: 'NicsMissing' });
  });

  it('is False with NotRequested without spec.network', () => {
    expect(computeNetworkCondition(aGuest(), observedWith([]))).toMatchObject({ status: 'False', reason: 'NotRequested' });
  });
});

describe('computeConfiguredDisks', () => {
  it('records the disk configuration of disks that exist', () => {
    const guest = aGuest({ diskConfig: [{ vdev: '101', format: 'ext4', mntdir: '/mnt/ephemeral0' }, { vdev: '0102', format: 'swap', mntdir: 'swap' }] });
    expect(computeConfiguredDisks(guest, anObservedGuest({ disks: ['0101'] }))).toEqual([{ vdev: '0101', format: 'ext4', mntdir: '/mnt/ephemeral0' }]);
  });
});
