import { aRestWorld, type RestWorld } from './support/world.js';

const send = (w: RestWorld, method: string, url: string, body?: unknown) =>
  w.inject({ method, url, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }) });

async function managed(w: RestWorld, userid: string, power: 'on' | 'off' = 'off') {
  await send(w, 'POST', '/guests', { guest: { userid, vcpus: 1, memory: 1024, max_cpu: 4, max_mem: '4G' } });
  await w.hv.createGuest({ userid, vcpus: 1, maxCpus: 4, memory: '1G', maxMemory: '4G' });
  if (power === 'on') await w.hv.start(userid);
}

describe('REST guest disks, NICs, stats and other actions', () => {
  let w: RestWorld;
  beforeEach(async () => { w = await aRestWorld(); });
  afterEach(async () => { await w.close(); });

  it('adds disks after the highest vdev and answers them', async () => {
    await managed(w, 'D1');
    await w.hv.addDisk('D1', { vdev: '0100', pool: 'ECKD:POOL1', size: '1G' });
    const res = await send(w, 'POST', '/guests/D1/disks', { disk_info: { disk_list: [{ size: '2G', format: 'xfs' }] } });
    expect(res.json()).toMatchObject({ overallRC: 0, output: [{ size: '2G', disk_pool: 'ECKD:POOL1', vdev: '0101', format: 'xfs' }] });
    expect((await w.guest('d1'))?.spec.disks).toEqual([{ size: '2G', vdev: '0101', format: 'xfs', pool: 'ECKD:POOL1' }]);
  });

  it('answers a bad size among added disks 400 naming disk_info.disk_list[i].size, and adds none', async () => {
    await managed(w, 'D4');
    await send(w, 'POST', '/guests/D4/disks', { disk_info: { disk_list: [{ size: '1G' }] } });
    const res = await send(w, 'POST', '/guests/D4/disks', { disk_info: { disk_list: [{ size: '2G' }, { size: '0' }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ overallRC: 100, rs: 3 });
    expect(res.json().errmsg).toMatch(/^Invalid API arg format, error: disk_info\.disk_list\[1\]\.size: '0' must match pattern/);
    expect(res.json().errmsg).not.toContain('/spec/');
    expect((await w.guest('d4'))?.spec.disks).toHaveLength(1);
  });

  it('answers an empty disk_list with no output and lists minidisks from the directory', async () => {
    await managed(w, 'D2');
    expect((await send(w, 'POST', '/guests/D2/disks', { disk_info: {} })).json()).toMatchObject({ overallRC: 0, output: '' });
    await w.hv.addDisk('D2', { vdev: '0100', pool: 'ECKD:POOL1', size: '1G' });
    const res = await send(w, 'GET', '/guests/D2/disks');
    expect(res.json().output.minidisks).toEqual([{ vdev: '0100', rdev: '', access_type: 'R/W', device_type: '3390', device_size: 100, device_units: 'Cylinders', volume_label: 'VOL001' }]);
  });

  it('removes disks of a logged-off guest and refuses it for a running one with 501', async () => {
    await managed(w, 'D3');
    await send(w, 'POST', '/guests/D3/disks', { disk_info: { disk_list: [{ size: '1G' }, { size: '2G' }] } });
    expect((await send(w, 'DELETE', '/guests/D3/disks', { vdev_info: { vdev_list: ['0100'] } })).statusCode).toBe(200);
    expect((await w.guest('d3'))?.spec.disks?.map((d) => d.vdev)).toEqual(['0101']);
    await w.hv.start('D3');
    const res = await send(w, 'DELETE', '/guests/D3/disks', { vdev_info: { vdev_list: ['0101'] } });
    expect(res.statusCode).toBe(501);
    expect(res.json().errmsg).toBe('The requested function: delete disks when guest is active has not been implemented in current release');
  });

  it('adds, couples, uncouples and deletes a NIC through spec.nics', async () => {
    await managed(w, 'N1');
    expect((await send(w, 'POST', '/guests/N1/nic', { nic: { nic_id: 'port-1' } })).json().output).toBe('1000');
    expect((await send(w, 'PUT', '/guests/N1/nic/1000', { info: { couple: true, vswitch: 'vsw1', vlan_id: 10 } })).statusCode).toBe(200);
    expect((await w.guest('n1'))?.spec.nics).toEqual([{ vdev: '1000', nicId: 'port-1', vswitch: 'VSW1', vlan: 10 }]);
    const nics = await send(w, 'GET', '/guests/nics?vswitch=vsw1');
    expect(nics.json().output).toEqual([{ userid: 'N1', interface: '1000', switch: 'VSW1', port: 'port-1', comments: null }]);
    await send(w, 'PUT', '/guests/N1/nic/1000', { info: { couple: 'false' } });
    expect((await w.guest('n1'))?.spec.nics).toEqual([{ vdev: '1000', nicId: 'port-1' }]);
    expect((await send(w, 'DELETE', '/guests/N1/nic/1000', {})).statusCode).toBe(200);
    expect((await w.guest('n1'))?.spec.nics).toEqual([]);
  });

  it('requires a JSON body on NIC delete and a vswitch to couple', async () => {
    await managed(w, 'N2');
    await send(w, 'POST', '/guests/N2/nic', { nic: {} });
    expect((await send(w, 'DELETE', '/guests/N2/nic/1000')).json().errmsg).toMatch(/^Malformed JSON/);
    expect((await send(w, 'PUT', '/guests/N2/nic/1000', { info: { couple: true } })).statusCode).toBe(400);
  });

  it('creates network interfaces with a NIC each and echoes nic_vdev', async () => {
    await managed(w, 'I1');
    const res = await send(w, 'POST', '/guests/I1/interface', { interface: { os_version: 'rhel8.6', guest_networks: [{ ip_addr: '10.0.0.5', cidr: '10.0.0.0/24' }] } });
    expect(res.json().output).toEqual([{ ip_addr: '10.0.0.5', cidr: '10.0.0.0/24', nic_vdev: '1000' }]);
    expect((await w.guest('i1'))?.spec.network).toEqual({ osVersion: 'rhel8.6', interfaces: [{ nicVdev: '1000', ipAddr: '10.0.0.5', cidr: '10.0.0.0/24' }] });
    const bad = await send(w, 'POST', '/guests/I1/interface', { interface: { os_version: 'rhel8.6', guest_networks: [{ ip_addr: '10.0.0.6' }] } });
    expect(bad.json().errmsg).toBe("ValidationError: Validation error: Invalid input for field/attribute 0. Value: {'ip_addr': '10.0.0.6'}. 'cidr' is a dependency of 'ip_addr'");
    await send(w, 'DELETE', '/guests/I1/interface', { interface: { os_version: 'rhel8.6', vdev: '1000' } });
    const after = await w.guest('i1');
    expect(after?.spec.network).toBeUndefined();
    expect(after?.spec.nics).toEqual([]);
  });

  it('answers stats for the last userid value and 404 for an unmanaged one', async () => {
    await managed(w, 'S1');
    expect((await send(w, 'GET', '/guests/stats?userid=S1')).json()).toMatchObject({ overallRC: 0, output: {} });
    expect((await send(w, 'GET', '/guests/stats?userid=XX,S1')).statusCode).toBe(404);
    expect((await send(w, 'GET', '/guests/stats?userid=XX&userid=S1')).statusCode).toBe(200);
    const bad = await send(w, 'GET', '/guests/stats?foo=1');
    expect(bad.json().errmsg).toBe("ValidationError: Validation error: Additional properties are not allowed ('foo' was unexpected)");
    expect((await send(w, 'GET', '/guests/interfacestats?userid=S1')).json().output).toEqual({});
    expect((await send(w, 'GET', '/guests/vnicsinfo?userid=S1')).statusCode).toBe(200);
  });

  it('reads info, power state and the console of a guest from the host', async () => {
    await managed(w, 'Q1', 'on');
    expect((await send(w, 'GET', '/guests/Q1/power_state')).json().output).toBe('on');
    expect((await send(w, 'GET', '/guests/q1/power_state_real')).json().output).toBe('on');
    expect((await send(w, 'GET', '/guests/Q1/info')).json().output).toMatchObject({ power_state: 'on', online_cpu_num: 1 });
    expect((await send(w, 'GET', '/guests/Q1/online_cpu_num')).json().output).toBe(1);
    expect((await send(w, 'POST', '/guests/Q1/action', { action: 'get_console_output' })).json()).toMatchObject({ overallRC: 0, output: '' });
  });

  it('resizes through the spec and refuses more CPUs than the maximum with 409 rs4', async () => {
    await managed(w, 'R1', 'on');
    const over = await send(w, 'POST', '/guests/R1/action', { action: 'resize_cpus', cpu_cnt: 5 });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({ overallRC: 409, rs: 4 });
    expect((await send(w, 'POST', '/guests/R1/action', { action: 'live_resize_cpus', cpu_cnt: 3 })).statusCode).toBe(200);
    expect((await w.guest('r1'))?.spec).toMatchObject({ vcpus: 3, resizePolicy: 'LiveWhenPossible' });
    expect((await send(w, 'POST', '/guests/R1/action', { action: 'resize_mem', size: '2g' })).statusCode).toBe(200);
    expect((await w.guest('r1'))?.spec).toMatchObject({ memory: '2G', resizePolicy: 'Deferred' });
    expect((await send(w, 'POST', '/guests/R1/action', { action: 'resize_mem', size: '8G' })).json()).toMatchObject({ rs: 20 });
  });

  it('registers an existing guest with spec.adopt and deregisters it as an orphan', async () => {
    await w.hv.createGuest({ userid: 'OLD1', vcpus: 2, maxCpus: 8, memory: '2G', maxMemory: '8G' });
    const reg = await send(w, 'POST', '/guests/OLD1/action', { action: 'register_vm', meta: 'os_version=rhel8', net_set: '1' });
    expect(reg.statusCode).toBe(200);
    expect((await w.guest('old1'))?.spec).toMatchObject({ userid: 'OLD1', adopt: true, vcpus: 2, maxCpus: 8, memory: '2G', maxMemory: '8G', powerState: 'Stopped' });
    expect((await send(w, 'POST', '/guests/OLD1/action', { action: 'deregister_vm' })).statusCode).toBe(200);
    expect(await w.guest('old1')).toBeUndefined();
    expect(w.hv.entries.has('OLD1')).toBe(true);
  });

  it('accepts register_vm bodies the reference accepts: a string port and keys it does not know; refuses a non-string port', async () => {
    await w.hv.createGuest({ userid: 'OLD2', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    const body = { action: 'register_vm', meta: 'os_version=rhel8', net_set: '1', port: '6e2ecc4f-14a2-4f33-9f12-5ac4a42f97e7', port_macs: ['not', 'a', 'dict'], extra: 1 };
    expect((await send(w, 'POST', '/guests/OLD2/action', body)).statusCode).toBe(200);
    expect((await w.guest('old2'))?.spec).toMatchObject({ userid: 'OLD2', adopt: true });
    const bad = await send(w, 'POST', '/guests/OLD2/action', { action: 'register_vm', meta: 'm', net_set: '1', port: 7 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errmsg).toMatch(/^ValidationError: .*field\/attribute port\. /);
  });

  it('answers register of a userid z/VM does not know 404', async () => {
    expect((await send(w, 'POST', '/guests/NONE1/action', { action: 'register_vm', meta: '', net_set: '0' })).statusCode).toBe(404);
  });
});
