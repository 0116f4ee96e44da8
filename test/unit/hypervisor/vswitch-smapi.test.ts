import { HypervisorError } from '../../../src/errors.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { computeCreateParams } from '../../../src/hypervisor/zvm/vswitch.js';
import type { VswitchOps } from '../../../src/hypervisor/vswitch-port.js';
import type { SimHost } from '../../../src/hypervisor/sim/index.js';
import { call, createGuest, smallHost } from './sim/helpers.js';

function setup(): { sim: SimHost; ops: VswitchOps; calls: string[] } {
  const sim = smallHost();
  const calls: string[] = [];
  const hv = createSmapiHypervisor({ hostName: 'h', caller: createInProcessCaller({ handler: sim, onCall: (fn) => calls.push(fn) }) });
  return { sim, ops: hv.vswitches!, calls };
}

describe('create parameters (docs/rest-interface.md §3.10)', () => {
  it('sends the defaults of a VLAN-unaware ETHERNET switch without router, port type or GVRP', () => {
    expect(computeCreateParams({ name: 'vsw1', rdev: ['1000', '2000'], controller: '*' })).toEqual({
      switch_name: 'VSW1', real_device_address: '1000 2000', connection_value: 'CONNECT', queue_memory_limit: '8',
      transport_type: 'ETHERNET', vlan_id: 'UNAWARE', persist: 'YES',
    });
  });

  it('adds port type, GVRP and native VLAN for an aware switch and the router for an IP switch', () => {
    expect(computeCreateParams({ name: 'V', networkType: 'IP', router: 'PRIROUTER', vid: '100', nativeVid: 5, gvrp: 'NOGVRP', controller: 'DTCVSW1', persist: false, queueMem: 2 }))
      .toEqual({
        switch_name: 'V', controller_name: 'DTCVSW1', connection_value: 'CONNECT', queue_memory_limit: '2', transport_type: 'IP', vlan_id: '100',
        persist: 'NO', port_type: 'ACCESS', gvrp_value: 'NOGVRP', native_vlanid: '5', routing_value: 'PRIROUTER',
      });
  });
});

describe('SMAPI vswitch adapter over the simulator', () => {
  it('creates a switch whose details carry every field of the interface', async () => {
    const { ops } = setup();
    await ops.create({ name: 'vsw1', rdev: ['1000'], vid: 'AWARE', nativeVid: 10, gvrp: 'GVRP' });
    const d = await ops.describe('VSW1');
    expect(d).toMatchObject({
      switch_name: 'VSW1', transport_type: 'ETHERNET', vlan_awareness: 'AWARE', port_type: 'ACCESS', queue_memory_limit: '8',
      routing_value: 'NA', gvrp_request_attribute: 'GVRP', switch_status: 'OSA device ready.', link_ag: 'LAG', lag_group: '(NOGRP)',
      real_devices: { 1000: { vdev: '0600', controller: 'DTCVSW1', port_name: 'NONE', dev_status: 'Device is active.', dev_err: 'No error.' } },
      authorized_users: {}, adapters: {},
    });
    expect(Object.keys(d!).sort()).toEqual([
      'IP_timeout', 'MAC_protect', 'VLAN_counters', 'adapters', 'authorized_users', 'gvrp_enabled_attribute', 'gvrp_request_attribute',
      'isolation_status', 'lag_group', 'lag_interval', 'link_ag', 'mac_address', 'native_vlan_id', 'port_type', 'queue_memory_limit',
      'real_devices', 'routing_value', 'switch_name', 'switch_status', 'switch_type', 'transport_type', 'user_port_based', 'vlan_awareness', 'vlan_id',
    ]);
    expect(await ops.list()).toEqual(['VSW1']);
  });

  it('answers 212/36 for an existing switch and undefined for a missing one', async () => {
    const { ops } = setup();
    await ops.create({ name: 'VSW1' });
    await expect(ops.create({ name: 'VSW1' })).rejects.toMatchObject({ rc: 212, rs: 36 });
    expect(await ops.describe('NOPE')).toBeUndefined();
    expect(await setup().ops.list()).toEqual([]);
  });

  it('grants with VLAN ids, treats a repeated grant as done, revokes, and lists VLANs only on aware switches', async () => {
    const { ops } = setup();
    await ops.create({ name: 'AWARE1', vid: 'AWARE' });
    await ops.grant('aware1', 'linux01', [100, 200]);
    await ops.grant('AWARE1', 'LINUX01', [100, 200]);
    await ops.grant('AWARE1', 'LINUX02', []);
    const d = await ops.describe('AWARE1');
    expect(d!.authorized_users.LINUX01).toEqual({ port_num: '0000', prom_mode: 'NOPROM', osd_sim: 'NOOSDSIM', vlan_count: '2', vlan_ids: ['0100', '0200'] });
    expect(d!.authorized_users.LINUX02.vlan_count).toBe('0');
    await ops.revoke('AWARE1', 'LINUX01');
    await ops.revoke('AWARE1', 'LINUX01');
    expect(Object.keys((await ops.describe('AWARE1'))!.authorized_users)).toEqual(['LINUX02']);
  });

  it('refuses VLAN ids on an unaware switch with 396/2846', async () => {
    const { ops } = setup();
    await ops.create({ name: 'PLAIN' });
    const err = await ops.grant('PLAIN', 'LINUX01', [5]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypervisorError);
    expect(err).toMatchObject({ rc: 396, rs: 2846 });
  });

  it('deletes idempotently and a coupled running NIC shows as an adapter until then', async () => {
    const { sim, ops } = setup();
    await ops.create({ name: 'VSW1', rdev: ['1000'] });
    await ops.grant('VSW1', 'LINUX01', []);
    await createGuest(sim, 'LINUX01', 'NICDEF 1000 TYPE QDIO LAN SYSTEM VSW1');
    expect((await call(sim, 'Image_Activate', 'LINUX01')).rc).toBe(0);
    const d = await ops.describe('VSW1');
    expect(Object.keys(d!.adapters)).toEqual(['LINUX01_1000']);
    expect(d!.adapters.LINUX01_1000.type).toBe('QDIO');
    // an UNAWARE switch shows the number 0 and no ids, as feilong's query_vswitch rewrites them
    expect(d!.authorized_users.LINUX01).toMatchObject({ vlan_count: 0, vlan_ids: [] });
    await ops.delete('VSW1');
    await ops.delete('VSW1');
    expect(await ops.list()).toEqual([]);
  });

  it('reports a real device already used by another switch as attached elsewhere', async () => {
    const { ops } = setup();
    await ops.create({ name: 'FIRST', rdev: ['1000'] });
    await ops.create({ name: 'SECOND', rdev: ['1000'] });
    const d = await ops.describe('SECOND');
    expect(d!.real_devices['1000']).toMatchObject({ dev_status: 'Device is not active.', dev_err: 'Real device is attached elsewhere.' });
    expect(d!.switch_status).toBe('OSA device not ready');
  });

  it('refuses a router on an ETHERNET switch and NOUPLINK with a real device (rc 24)', async () => {
    const { sim } = setup();
    const r1 = await call(sim, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'A', transport_type: 'ETHERNET', routing_value: 'NONROUTER' });
    const r2 = await call(sim, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'B', real_device_address: '1000', connection_value: 'NOUPLINK' });
    const r3 = await call(sim, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'C', real_device_address: '1000 2000 3000 4000' });
    expect([r1.rc, r2.rc, r3.rc]).toEqual([24, 24, 24]);
  });
});
