import type { Standalone } from '../../../src/cmd/standalone.js';
import type { ZVswitch } from '../../../src/api/index.js';
import { getWithBody, http, startTestStandalone, tempStateDir } from './helpers.js';

describe('vswitch routes over real HTTP (standalone)', () => {
  let app: Standalone;
  let base: string;
  let cleanup: () => void;

  beforeAll(async () => {
    const tmp = tempStateDir();
    cleanup = tmp.cleanup;
    app = await startTestStandalone(tmp.dir);
    base = app.restUrl;
  });
  afterAll(async () => {
    await app.stop();
    cleanup();
  });

  it('creates a vswitch as a ZVswitch resource and answers its live details with every field', async () => {
    const created = await http(base, 'POST', '/vswitches', { vswitch: { name: 'vsw1', rdev: '1000 1003', vid: 100, port_type: 'trunk', queue_mem: 4 } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '', output: '' });
    const resource = await app.store.get<ZVswitch>('ZVswitch', { name: 'vsw1' });
    expect(resource?.spec).toMatchObject({ switchName: 'VSW1', rdev: '1000 1003', vid: '100', portType: 'TRUNK', queueMem: 4, nativeVid: 1 });
    expect(resource?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    const list = await http<string[]>(base, 'GET', '/vswitches');
    expect(list.body.output).toEqual(['VSW1']);
    const details = await http<Record<string, unknown>>(base, 'GET', '/vswitches/vsw1');
    expect(details.status).toBe(200);
    expect(details.body.output).toMatchObject({
      switch_name: 'VSW1', vlan_awareness: 'AWARE', port_type: 'TRUNK', queue_memory_limit: '4', transport_type: 'ETHERNET',
      switch_status: 'OSA device ready.', authorized_users: {}, adapters: {},
      real_devices: { 1000: { dev_status: 'Device is active.' }, 1003: { dev_status: 'Device is a backup device' } },
    });
  });

  it('answers 409 for an existing name and 404 for details of an unknown one', async () => {
    const again = await http(base, 'POST', '/vswitches', { vswitch: { name: 'VSW1' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ overallRC: 8, rc: 212, rs: 36 });
    const missing = await http(base, 'GET', '/vswitches/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ overallRC: 404, modID: 20, rc: 404, rs: 1, errmsg: 'Vswitch NOPE does not exist.' });
  });

  it.each([
    ['PRIROUTER with ETHERNET', { name: 'bad1', router: 'PRIROUTER' }],
    ['PRIROUTER with the explicit ETHERNET type', { name: 'bad2', network_type: 'ETHERNET', router: 'prirouter' }],
    ['vlan 4095', { name: 'bad3', vid: 4095 }],
    ['rdev with four devices', { name: 'bad4', rdev: '1000 2000 3000 4000' }],
    ['queue_mem 9', { name: 'bad5', queue_mem: 9 }],
    ['native_vid 0', { name: 'bad6', vid: 'AWARE', native_vid: 0 }],
    ['an unknown key', { name: 'bad7', color: 'red' }],
  ])('refuses %s with a 400 envelope and touches nothing', async (_what, vswitch) => {
    const res = await http(base, 'POST', '/vswitches', { vswitch });
    expect(res.status).toBe(400);
    expect(res.body.overallRC).toBe(400);
    expect((await app.store.list('ZVswitch')).items.map((v) => v.metadata.name)).toEqual(['vsw1']);
    expect((await http<string[]>(base, 'GET', '/vswitches')).body.output).toEqual(['VSW1']);
  });

  it('creates an ETHERNET switch with router NONROUTER, as the reference and its templates do', async () => {
    const res = await http(base, 'POST', '/vswitches', { vswitch: { name: 'ethsw', network_type: 'ETHERNET', router: 'NONROUTER' } });
    expect(res.status).toBe(200);
    const d = await http<Record<string, string>>(base, 'GET', '/vswitches/ETHSW');
    expect(d.body.output).toMatchObject({ transport_type: 'ETHERNET', switch_name: 'ETHSW' });
    expect((await http(base, 'DELETE', '/vswitches/ETHSW')).status).toBe(200);
  });

  it('creates an IP switch with a router', async () => {
    const res = await http(base, 'POST', '/vswitches', { vswitch: { name: 'ipsw', network_type: 'IP', router: 'PRIrouter', connection: 'DISCONnect', persist: 'no' } });
    expect(res.status).toBe(200);
    const d = await http<Record<string, string>>(base, 'GET', '/vswitches/IPSW');
    expect(d.body.output).toMatchObject({ transport_type: 'IP', routing_value: 'PRIROUTER', vlan_awareness: 'UNAWARE' });
  });

  it('grants, sets a user VLAN id, revokes, through spec.authorizedUsers', async () => {
    const guest = await http(base, 'POST', '/guests', { guest: { userid: 'vnet01', vcpus: 1, memory: 512 } });
    expect(guest.status).toBe(200);
    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { grant_userid: 'vnet01' } })).status).toBe(200);
    let d = await http<{ authorized_users: Record<string, { vlan_ids: string[] }> }>(base, 'GET', '/vswitches/vsw1');
    expect(Object.keys(d.body.output.authorized_users)).toEqual(['VNET01']);

    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { user_vlan_id: { userid: 'vnet01', vlanid: 200 } } })).status).toBe(200);
    d = await http(base, 'GET', '/vswitches/vsw1');
    expect(d.body.output.authorized_users.VNET01.vlan_ids).toEqual(['0200']);
    const resource = await app.store.get<ZVswitch>('ZVswitch', { name: 'vsw1' });
    expect(resource?.spec.authorizedUsers).toEqual([{ userid: 'VNET01', vlanIds: [200] }]);

    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { revoke_userid: 'vnet01' } })).status).toBe(200);
    d = await http(base, 'GET', '/vswitches/vsw1');
    expect(d.body.output.authorized_users).toEqual({});
  });

  it('answers the reference codes for a bad update', async () => {
    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { grant_userid: 'nobody' } })).status).toBe(404);
    expect((await http(base, 'PUT', '/vswitches/none', { vswitch: { grant_userid: 'vnet01' } })).status).toBe(404);
    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { user_vlan_id: { userid: 'vnet01', vlanid: 4095 } } })).status).toBe(400);
    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: { user_vlan_id: { userid: 'vnet01', vlanid: 0 } } })).status).toBe(400);
    expect((await http(base, 'PUT', '/vswitches/vsw1', { vswitch: {} })).status).toBe(400);
    // revoke swallows every failure, as the reference does
    expect((await http(base, 'PUT', '/vswitches/none', { vswitch: { revoke_userid: 'vnet01' } })).status).toBe(200);
  });

  it('finds NIC records by port with GET /vswitch and a JSON body', async () => {
    expect((await http(base, 'POST', '/guests/vnet01/nic', { nic: { vdev: '1000', nic_id: 'port-1' } })).status).toBe(200);
    const found = await getWithBody(base, '/vswitch', JSON.stringify({ portid: 'port-1' }));
    expect(found.status).toBe(200);
    expect(found.body.output).toEqual([{ userid: 'VNET01', interface: '1000', switch: null, port: 'port-1', comments: null }]);
    expect((await getWithBody(base, '/vswitch', JSON.stringify({ portid: 'other' }))).body.output).toEqual([]);
    expect((await getWithBody(base, '/vswitch')).status).toBe(400);
    expect((await getWithBody(base, '/vswitch', '{}')).status).toBe(400);
  });

  it('deletes a vswitch and its resource; deleting it again succeeds', async () => {
    expect((await http(base, 'DELETE', '/vswitches/vsw1')).status).toBe(200);
    expect(await app.store.get('ZVswitch', { name: 'vsw1' })).toBeUndefined();
    expect((await http<string[]>(base, 'GET', '/vswitches')).body.output).toEqual(['IPSW']);
    expect((await http(base, 'DELETE', '/vswitches/vsw1')).status).toBe(200);
  });
});
