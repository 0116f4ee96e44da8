import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import type { SmapiResponse } from '../../../../src/hypervisor/smapi/types.js';
import { call, createGuest, rcrs, records, smallHost } from './helpers.js';

const nic = (vdev: string, extra: Record<string, string> = {}) => ({ image_device_number: vdev, adapter_type: 'QDIO', ...extra });

async function vswitch(host: SimHost, name: string, extra: Record<string, string> = {}): Promise<void> {
  const r = await call(host, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', {
    switch_name: name,
    real_device_address: '1000',
    connection_value: 'CONNECT',
    transport_type: 'ETHERNET',
    vlan_id: 'UNAWARE',
    persist: 'YES',
    ...extra,
  });
  expect(rcrs(r)).toEqual([0, 0]);
}

const grant = (host: SimHost, sw: string, userid: string, vlan = '') =>
  call(host, 'Virtual_Network_Vswitch_Set_Extended', 'MAINT', { switch_name: sw, grant_userid: userid, user_vlan_id: vlan, persist: 'YES' });

describe('simulated NICs in the directory', () => {
  it('defines a NICDEF with its MACID and refuses any collision with its three devices (404/4)', async () => {
    const host = smallHost();
    await createGuest(host, 'N1', 'MDISK 0101 3390 1 10 OTHER1 MR');
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'N1', nic('1000', { mac_id: '0e4e8e' })))).toEqual([0, 0]);
    expect(await records(host, 'N1')).toContain('NICDEF 1000 TYPE QDIO MACID 0E4E8E');
    for (const vdev of ['1000', '1002', '0FFE']) {
      expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'N1', nic(vdev)))).toEqual([404, 4]);
    }
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'N1', nic('0100')))).toEqual([404, 4]);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'N1', nic('1003')))).toEqual([0, 0]);
  });

  it('couples and uncouples in the directory (Connect_Vswitch_DM / Disconnect_DM, 212/32)', async () => {
    const host = smallHost();
    await createGuest(host, 'N2');
    await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'N2', nic('1000', { mac_id: '0E4E8E' }));
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Connect_Vswitch_DM', 'N2', { image_device_number: '1000', switch_name: 'vsw2' }))).toEqual([0, 0]);
    expect(await records(host, 'N2')).toContain('NICDEF 1000 TYPE QDIO LAN SYSTEM VSW2 MACID 0E4E8E');
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Disconnect_DM', 'N2', { image_device_number: '1000' }))).toEqual([0, 0]);
    expect(await records(host, 'N2')).toContain('NICDEF 1000 TYPE QDIO MACID 0E4E8E');
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Disconnect_DM', 'N2', { image_device_number: '1000' }))).toEqual([212, 32]);
  });

  it.each(['Virtual_Network_Adapter_Delete_DM', 'Virtual_Network_Adapter_Disconnect_DM'])('%s of a missing NIC → 404/8', async (fn) => {
    const host = smallHost();
    await createGuest(host, 'N3');
    expect(rcrs(await call(host, fn, 'N3', { image_device_number: '2000' }))).toEqual([404, 8]);
  });

  it('deletes every NICDEF line of the vdev', async () => {
    const host = smallHost();
    await createGuest(host, 'N4', 'NICDEF 1000 TYPE QDIO', 'NICDEF 1000 LAN SYSTEM VSW1 VLAN 5 PORTTYPE ACCESS');
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Delete_DM', 'N4', { image_device_number: '1000' }))).toEqual([0, 0]);
    expect((await records(host, 'N4')).some((s) => s.startsWith('NICDEF'))).toBe(false);
  });
});

describe('simulated vswitches', () => {
  it.each<[string, (h: SimHost) => Promise<SmapiResponse>, [number, number]]>([
    ['create an existing switch', (h) => call(h, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'VSW1' }), [212, 36]],
    ['set a missing switch', (h) => grant(h, 'NOSW', 'U1'), [212, 40]],
    ['delete a missing switch', (h) => call(h, 'Virtual_Network_Vswitch_Delete_Extended', 'MAINT', { switch_name: 'NOSW' }), [212, 40]],
    ['query a missing switch', (h) => call(h, 'Virtual_Network_Vswitch_Query_Extended', 'MAINT', { switch_name: 'NOSW' }), [212, 40]],
    ['grant a granted user', async (h) => grant(h, 'VSW1', 'U1').then(() => grant(h, 'VSW1', 'U1')), [212, 44]],
    ['grant a VLAN on a VLAN-unaware switch', (h) => grant(h, 'VSW1', 'U1', '10'), [396, 2846]],
  ])('refuses to %s', async (_n, act, expected) => {
    const host = smallHost();
    await vswitch(host, 'VSW1');
    expect(rcrs(await act(host))).toEqual(expected);
  });

  it('reports attributes, grants with VLANs and connected adapters in Query_Extended', async () => {
    const host = smallHost();
    await vswitch(host, 'VSWA', { vlan_id: '100', port_type: 'ACCESS' });
    expect(rcrs(await grant(host, 'VSWA', 'g1', '10'))).toEqual([0, 0]);
    expect(rcrs(await grant(host, 'VSWA', 'G1', '20'))).toEqual([0, 0]);
    await createGuest(host, 'G1', 'NICDEF 1000 TYPE QDIO MACID 000010', 'NICDEF 1000 LAN SYSTEM VSWA');
    await call(host, 'Image_Activate', 'G1');
    const q = await call(host, 'Virtual_Network_Vswitch_Query_Extended', 'MAINT', { switch_name: 'VSWA' });
    const [sw] = q.output.vswitch_array as Record<string, unknown>[];
    expect(sw).toMatchObject({
      switch_name: 'VSWA',
      transport_type: 'ETHERNET',
      vlan_awareness: 'AWARE',
      vlan_id: '00100',
      port_type: 'ACCESS',
      authorized_user_array: [{ port_num: '0000', grant_userid: 'G1', promiscuous_mode: 'NOPROM', osd_sim: 'NOOSDSIM', vlan_array: [{ user_vlan_id: '0010' }, { user_vlan_id: '0020' }] }],
      connected_adapter_array: [{ adapter_owner: 'G1', adapter_vdev: '1000', adapter_macaddr: '02-00-01-00-00-10', adapter_type: 'QDIO' }],
      real_device_info_array: [expect.objectContaining({ real_device_address: '1000' })],
    });
  });

  it('revokes a grant and deletes the switch', async () => {
    const host = smallHost();
    await vswitch(host, 'VSWB');
    await grant(host, 'VSWB', 'U1');
    await call(host, 'Virtual_Network_Vswitch_Set_Extended', 'MAINT', { switch_name: 'VSWB', revoke_userid: 'U1' });
    const q = await call(host, 'Virtual_Network_Vswitch_Query_Extended', 'MAINT', { switch_name: '*' });
    expect((q.output.vswitch_array as { authorized_user_array: unknown[] }[])[0].authorized_user_array).toEqual([]);
    expect(rcrs(await call(host, 'Virtual_Network_Vswitch_Delete_Extended', 'MAINT', { switch_name: 'VSWB', persist: 'YES' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Virtual_Network_Vswitch_Query', 'MAINT', { switch_name: '*' }))).toEqual([212, 40]);
  });
});

describe('simulated NICs in a running guest', () => {
  async function runningWithNic(host: SimHost): Promise<void> {
    await vswitch(host, 'VSW1');
    await createGuest(host, 'R1', 'NICDEF 1000 TYPE QDIO');
    await call(host, 'Image_Activate', 'R1');
  }

  it('couples with the active call: 212/8 until granted, then 204/20 when repeated', async () => {
    const host = smallHost();
    await runningWithNic(host);
    const couple = () => call(host, 'Virtual_Network_Adapter_Connect_Vswitch', 'R1', { image_device_number: '1000', switch_name: 'VSW1' });
    expect(rcrs(await couple())).toEqual([212, 8]);
    await grant(host, 'VSW1', 'R1');
    expect(rcrs(await couple())).toEqual([0, 0]);
    expect(rcrs(await couple())).toEqual([204, 20]);
    const a = await call(host, 'Virtual_Network_Adapter_Query_Extended', 'R1', { image_device_number: '*' });
    expect(a.output.virtual_network_adapter_data).toEqual([
      expect.objectContaining({ adapter_address: '1000', adapter_type: '2', network_device_count: '3', adapter_status: '01', lan_owner: 'SYSTEM', lan_name: 'VSW1' }),
    ]);
  });

  it.each<[string, Record<string, string>, [number, number]]>([
    ['a missing NIC', { image_device_number: '2000', switch_name: 'VSW1' }, [204, 8]],
    ['a missing switch', { image_device_number: '1000', switch_name: 'NOSW' }, [212, 40]],
  ])('refuses to couple %s', async (_n, params, expected) => {
    const host = smallHost();
    await runningWithNic(host);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Connect_Vswitch', 'R1', params))).toEqual(expected);
  });

  it('creates, disconnects (204/48 when repeated) and deletes active NICs (204/8 when missing)', async () => {
    const host = smallHost();
    await runningWithNic(host);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended', 'R1', nic('1001')))).toEqual([204, 4]);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended', 'R1', nic('2000')))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Disconnect', 'R1', { image_device_number: '2000' }))).toEqual([204, 48]);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Delete', 'R1', { image_device_number: '2000' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Delete', 'R1', { image_device_number: '2000' }))).toEqual([204, 8]);
    // the directory never saw the active NIC
    expect((await records(host, 'R1')).filter((s) => s.startsWith('NICDEF'))).toEqual(['NICDEF 1000 TYPE QDIO']);
  });

  it('answers 200/12 for active NIC calls on a logged-off guest', async () => {
    const host = smallHost();
    await createGuest(host, 'OFF1');
    expect(rcrs(await call(host, 'Virtual_Network_Adapter_Create_Extended', 'OFF1', nic('1000')))).toEqual([200, 12]);
  });
});
