/**
 * Three replies the simulator gives as IBM's own client reads them (issue 39: smcli, built from feilong's
 * zthin sources, against the simulator). Each value below is IBM's documented one, cited:
 * - Image_CPU_Define_DM dedicate_cpu: 0 unspecified, 1 NODEDICATE, 2 DEDICATE (z/VM Systems Management
 *   Application Programming, SC24-6327, "Image_CPU_Define_DM"; the same in smcli's help and pysmapi's
 *   Image_CPU_Define_DM.dedicate_cpu_names).
 * - Virtual_Network_Vswitch_Query routing_value: 1 NONROUTER, 2 PRIROUTER; gvrp_request_attribute and
 *   gvrp_enabled_attribute: 1 requested/enabled, 2 not (SC24-6327 "Virtual_Network_Vswitch_Query";
 *   pysmapi's Virtual_Network_Vswitch_Query constants). The real z/VM 7.1 capture in
 *   test/fixtures/smapi-vectors/Virtual_Network_Vswitch_Query/1.json reports ETHERNET switches with
 *   routing 1 and VLAN-unaware ones with GVRP 2/2.
 * - SSI_Query: rc 4 rs 3008 only on a system that is not an SSI member (SC24-6327 "SSI_Query"); a system
 *   that VMRELOCATEs to another member is one, so both must tell the same cluster.
 */
import { decodeResponse, encodeResponse } from '../../../../src/hypervisor/smapi/codec.js';
import { loadVectors } from '../smapi/load-vectors.js';
import { call, createGuest, rcrs, records, smallHost } from './helpers.js';

describe('Image_CPU_Define_DM dedicate_cpu as IBM numbers it', () => {
  it.each([
    [0, 'CPU 01'],
    [1, 'CPU 01 NODEDICATE'],
    [2, 'CPU 01 DEDICATE'],
  ])('dedicate_cpu %i writes %s', async (dedicate, statement) => {
    const host = smallHost();
    await createGuest(host, 'CPU1');
    const r = await call(host, 'Image_CPU_Define_DM', 'CPU1', { cpu_address: '01', base_cpu: 0, cpuid: '', dedicate_cpu: dedicate, crypto: 0 });
    expect(rcrs(r)).toEqual([0, 0]);
    expect(await records(host, 'CPU1')).toContain(statement);
  });

  it('the recorded call (dedicate_cpu 1, base, cpuid) writes NODEDICATE', async () => {
    const vector = loadVectors('Image_CPU_Define_DM')[0]!;
    expect(vector.kwargs.dedicate_cpu).toBe(1);
    const host = smallHost();
    await createGuest(host, 'PONG1');
    // the capture's parameters, at address 01: the test entry already defines CPU 00
    const r = await call(host, 'Image_CPU_Define_DM', 'PONG1', { ...vector.kwargs, cpu_address: '01' });
    expect(rcrs(r)).toEqual([0, 0]);
    expect((await records(host, 'PONG1')).filter((s) => s.startsWith('CPU '))).toEqual(['CPU 01 BASE CPUID 123456 NODEDICATE']);
  });
});

describe('Virtual_Network_Vswitch_Query routing and GVRP as IBM numbers them', () => {
  async function query(create: Record<string, string>) {
    const host = smallHost();
    expect(rcrs(await call(host, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', create))).toEqual([0, 0]);
    const r = await call(host, 'Virtual_Network_Vswitch_Query', 'MAINT', { switch_name: create.switch_name! });
    // through the wire codec, as smcli reads it
    const wire = decodeResponse('Virtual_Network_Vswitch_Query', encodeResponse('Virtual_Network_Vswitch_Query', 1, r)).resp;
    return (wire.output.vswitch_array as Record<string, number>[])[0]!;
  }

  it('an ETHERNET switch, VLAN-unaware: routing 1, GVRP 2/2 (as the real capture)', async () => {
    const real = (loadVectors('Virtual_Network_Vswitch_Query')[0]!.parsed.vswitch_array as Record<string, number>[])
      .find((v) => v.transport_type === 2 && v.vlan_id === 0)!;
    const ours = await query({ switch_name: 'ETH1', transport_type: 'ETHERNET', vlan_id: 'UNAWARE' });
    expect({ routing: ours.routing_value, gvrpRequest: ours.gvrp_request_attribute, gvrpEnabled: ours.gvrp_enabled_attribute })
      .toEqual({ routing: real.routing_value, gvrpRequest: real.gvrp_request_attribute, gvrpEnabled: real.gvrp_enabled_attribute });
    expect([ours.routing_value, ours.gvrp_request_attribute, ours.gvrp_enabled_attribute]).toEqual([1, 2, 2]);
  });

  it('an IP switch: NONROUTER 1, PRIROUTER 2', async () => {
    expect((await query({ switch_name: 'IP1', transport_type: 'IP', routing_value: 'NONROUTER' })).routing_value).toBe(1);
    expect((await query({ switch_name: 'IP2', transport_type: 'IP', routing_value: 'PRIROUTER' })).routing_value).toBe(2);
  });

  it('a VLAN-aware switch asking for GVRP: requested 1; enabled 1 with an active uplink, 2 without (as the capture)', async () => {
    const withUplink = await query({ switch_name: 'AW1', transport_type: 'ETHERNET', vlan_id: '1024', gvrp_value: 'GVRP', real_device_address: '1000' });
    expect([withUplink.gvrp_request_attribute, withUplink.gvrp_enabled_attribute]).toEqual([1, 1]);
    const noUplink = await query({ switch_name: 'AW2', transport_type: 'ETHERNET', vlan_id: '1024', gvrp_value: 'GVRP' });
    expect([noUplink.gvrp_request_attribute, noUplink.gvrp_enabled_attribute]).toEqual([1, 2]);
    const no = await query({ switch_name: 'AW3', transport_type: 'ETHERNET', vlan_id: '1024', gvrp_value: 'NOGVRP' });
    expect([no.gvrp_request_attribute, no.gvrp_enabled_attribute]).toEqual([2, 2]);
  });
});

describe('SSI_Query agrees with VMRELOCATE', () => {
  it('a host that relocates to a second member reports the SSI with both members joined', async () => {
    const host = smallHost();
    await createGuest(host, 'MOVER');
    await call(host, 'Image_Activate', 'MOVER');
    expect(rcrs(await call(host, 'VMRELOCATE', 'MOVER', { action: 'TEST', destination: 'ZVMSIM2' }))).toEqual([0, 0]);
    const r = await call(host, 'SSI_Query', 'ALL');
    expect(rcrs(r)).toEqual([0, 0]);
    const members = (r.output.ssi_member_array as string[]).map((m) => m.split(' ').slice(0, 3).join(' '));
    expect(members).toEqual(['1 ZVMSIM Joined', '2 ZVMSIM2 Joined']);
    expect(r.output).toMatchObject({ ssi_mode: 'Stable', cross_system_timeouts: 'Enabled' });
  });

  it('a host without SSI members answers 4/3008 to both', async () => {
    const host = smallHost({ ssiMembers: [] });
    await createGuest(host, 'MOVER');
    await call(host, 'Image_Activate', 'MOVER');
    expect(rcrs(await call(host, 'VMRELOCATE', 'MOVER', { action: 'TEST', destination: 'ZVMSIM2' }))).toEqual([4, 3008]);
    expect(rcrs(await call(host, 'SSI_Query', 'ALL'))).toEqual([4, 3008]);
  });
});
