import { API_VERSION, type ZVswitch } from '../../../../src/api/index.js';
import { computeZVswitchStatus } from '../../../../src/controllers/zvswitch/status.js';
import type { VswitchDetails } from '../../../../src/hypervisor/vswitch-port.js';

const vswitch: ZVswitch = { apiVersion: API_VERSION, kind: 'ZVswitch', metadata: { name: 'vsw1', generation: 1 }, spec: {} };
const details = (over: Partial<VswitchDetails>): VswitchDetails =>
  ({ switch_name: 'VSW1', switch_status: 'Ready', vlan_awareness: 'UNAWARE', vlan_id: '0000', transport_type: 'ETHERNET', authorized_users: {}, real_devices: {}, adapters: {}, ...over }) as VswitchDetails;
const status = (observed: VswitchDetails | undefined) => computeZVswitchStatus({ vswitch, hostName: 'default', observed, now: new Date(0) });

describe('ZVswitch TYPE and VLAN columns', () => {
  it('show what the host reports, defaults included, for a spec that names neither', () => {
    expect(status(details({}))).toMatchObject({ networkType: 'ETHERNET', vlan: 'UNAWARE' });
    expect(status(details({ transport_type: 'IP', vlan_awareness: 'AWARE', vlan_id: '0100' }))).toMatchObject({ networkType: 'IP', vlan: '100' });
    expect(status(details({ vlan_awareness: 'AWARE', vlan_id: '0000' }))).toMatchObject({ vlan: 'AWARE' });
  });

  it('show nothing before the switch is seen', () => {
    const s = status(undefined);
    expect(s.networkType).toBeUndefined();
    expect(s.vlan).toBeUndefined();
  });
});
