import { describe, expect, it } from '@jest/globals';
import { toVswitchDetails } from '../../../src/hypervisor/zvm/vswitch-details.js';
import type { VswitchExtendedInfo } from '../../../src/hypervisor/smapi/functions.js';
import { OUTPUT_SHAPES, shapeMismatches } from '../../replay/shapes.js';

/** One Query_Extended record as smcli text fields; awareness and the status codes vary per case. */
function record(vlanAwareness: string, switchStatus = '8', deviceStatus = '1'): VswitchExtendedInfo {
  const attrs = ['switch_name', 'transport_type', 'port_type', 'queue_memory_limit', 'routing_value', 'vlan_id', 'native_vlan_id', 'mac_address',
    'gvrp_request_attribute', 'gvrp_enabled_attribute', 'link_ag', 'lag_interval', 'lag_group', 'IP_timeout', 'switch_type', 'isolation_status',
    'MAC_protect', 'user_port_based', 'VLAN_counters'];
  return {
    ...(Object.fromEntries(attrs.map((a) => [a, 'X'])) as unknown as VswitchExtendedInfo),
    vlan_awareness: vlanAwareness,
    switch_status: switchStatus,
    real_device_info_array: [{ real_device_address: '1000', virtual_device_address: '0600', controller_name: 'DTCVSW1', port_name: 'NONE', device_status: deviceStatus, device_error_status: '0' }],
    authorized_user_array: [{ port_num: '0000', grant_userid: 'LINUX01', promiscuous_mode: 'NOPROM', osd_sim: 'NOOSDSIM', vlan_array: [{ user_vlan_id: '0100' }] }],
    connected_adapter_array: [],
    uplink_structure: [],
    global_member_array: [],
  };
}

describe('vswitch details JSON types (feilong smtclient.query_vswitch)', () => {
  it('keeps the count text on an aware switch and writes the number 0 with no ids on an UNAWARE one', () => {
    expect(toVswitchDetails(record('AWARE')).authorized_users.LINUX01).toMatchObject({ vlan_count: '1', vlan_ids: ['0100'] });
    expect(toVswitchDetails(record('UNAWARE')).authorized_users.LINUX01).toMatchObject({ vlan_count: 0, vlan_ids: [] });
  });

  it('matches the replay shape in both cases', () => {
    for (const aware of ['AWARE', 'UNAWARE']) expect(shapeMismatches(OUTPUT_SHAPES.vswitch_query, toVswitchDetails(record(aware)))).toEqual([]);
  });

  it('shows a status code outside the tables as Unknown', () => {
    const d = toVswitchDetails(record('AWARE', '99', '7'));
    expect(d.switch_status).toBe('Unknown');
    expect(d.real_devices['1000'].dev_status).toBe('Unknown');
    expect(toVswitchDetails(record('AWARE')).real_devices['1000'].dev_status).toBe('Device is active.');
  });
});
