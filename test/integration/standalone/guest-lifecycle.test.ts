/** Guest routes over real HTTP against standalone mode: create, list, read, delete and live reads. */
import { jest } from '@jest/globals';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(60_000);

describe('guest lifecycle and live reads over HTTP (standalone)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
    await w.createGuest('life01', { vcpus: 2, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] });
    // created guests stay logged off, as the reference creates them
    expect((await w.call('POST', '/guests/life01/action', { action: 'start' })).status).toBe(200);
  });
  afterAll(() => w.stop());

  describe('POST /guests', () => {
    it('creates the guest on z/VM and answers the created disks in the newest form', async () => {
      const res = await w.call('POST', '/guests', { guest: { userid: 'life02', vcpus: 1, memory: 512, disk_list: [{ size: '1g', is_boot_disk: true }, { size: '200M', disk_pool: 'FBA:POOL2' }] } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ overallRC: 0, rc: 0, rs: 0, modID: null, errmsg: '' });
      expect(res.body.output).toEqual([
        { size: '1g', is_boot_disk: true, disk_pool: 'ECKD:POOL1', vdev: '0100', format: 'none' },
        { size: '200M', disk_pool: 'FBA:POOL2', vdev: '0101' },
      ]);
      expect((await w.hv.describeGuest('LIFE02'))?.directory.disks.map((d) => d.vdev)).toEqual(['0100', '0101']);
    });

    it('works without disk_list (the reference crashes) and answers an empty list', async () => {
      const res = await w.call('POST', '/guests', { guest: { userid: 'life03', vcpus: 1, memory: 512 } });
      expect(res.status).toBe(200);
      expect(res.body.output).toEqual([]);
    });

    it('answers 409 for a userid that exists (any case) and 400 for bad input', async () => {
      expectError(await w.call('POST', '/guests', { guest: { userid: 'LIFE01', vcpus: 1, memory: 512 } }), 409, { rc: 409 });
      const bad = await w.call('POST', '/guests', { guest: { userid: 'life04', vcpus: 1, memory: 512, max_cpu: 65 } });
      expectError(bad, 400, { modID: 120 });
      expect(bad.body.errmsg).toContain('max_cpu');
      expectError(await w.call('POST', '/guests', { guest: { userid: 'life04', vcpus: 1, memory: 512, max_mem: '10T' } }), 400);
      expectError(await w.call('POST', '/guests', { guest: { userid: 'life04', vcpus: 1, memory: 512, loaddev: { portname: 'XYZ' } } }), 400);
      expectError(await w.call('POST', '/guests', { guest: { userid: 'life04', vcpus: 1, memory: 512, disk_list: [{ size: '1g', vdev: '12345' }] } }), 400);
      expect(await w.hv.describeGuest('LIFE04')).toBeUndefined();
    });
  });

  it('GET /guests lists the managed userids in upper case', async () => {
    const res = await w.call<string[]>('GET', '/guests');
    expect(res.status).toBe(200);
    expect(res.body.output).toEqual(expect.arrayContaining(['LIFE01']));
  });

  it('GET /guests/{userid} answers the unmasked directory; 404 for an unknown guest', async () => {
    const res = await w.call<{ user_direct: string[] }>('GET', '/guests/life01');
    expect(res.status).toBe(200);
    expect(res.body.output.user_direct[0]).toMatch(/^USER LIFE01 LBYONLY 1G 64G G/);
    expectError(await w.call('GET', '/guests/nosuch'), 404, { overallRC: 404, modID: 10, rs: 1 });
  });

  it('GET user_direct masks the password; it reads z/VM, so an unknown userid is 404', async () => {
    const res = await w.call<{ user_direct: string[] }>('GET', '/guests/life01/user_direct');
    expect(res.body.output.user_direct[0]).toBe('USER LIFE01 ****** 1G 64G G ');
    expectError(await w.call('GET', '/guests/nosuch/user_direct'), 404);
  });

  it('power_state and power_state_real follow the guest; power_state_real also answers for unmanaged userids', async () => {
    expect((await w.call('GET', '/guests/life01/power_state')).body.output).toBe('on');
    expect((await w.call('GET', '/guests/life01/power_state_real')).body.output).toBe('on');
    expect((await w.call('POST', '/guests/life01/action', { action: 'stop' })).status).toBe(200);
    expect((await w.call('GET', '/guests/life01/power_state')).body.output).toBe('off');
    expect((await w.call('GET', '/guests/nosuch/power_state_real')).body.output).toBe('off');
    expectError(await w.call('GET', '/guests/nosuch/power_state'), 404, { rs: 1 });
    expect((await w.call('POST', '/guests/life01/action', { action: 'start' })).status).toBe(200);
  });

  it('GET info answers the running figures of a logged-on guest and the directory ones when off', async () => {
    const on = await w.call<Record<string, unknown>>('GET', '/guests/life01/info');
    expect(on.body.output).toMatchObject({ power_state: 'on', num_cpu: 2, max_mem_kb: 1024 * 1024, online_cpu_num: 2, os_distro: '', kernel_info: '' });
    const off = await w.call<Record<string, unknown>>('GET', '/guests/life03/info');
    expect(off.body.output).toEqual({ power_state: 'off', max_mem_kb: 64 * 1024 * 1024, mem_kb: 0, num_cpu: 1, cpu_time_us: 0, online_cpu_num: 0, os_distro: '', kernel_info: '' });
    expectError(await w.call('GET', '/guests/nosuch/info'), 404);
  });

  it('GET os_info and online_cpu_num answer without an in-guest agent; 404 for unknown guests', async () => {
    expect((await w.call('GET', '/guests/life01/os_info')).body.output).toEqual({ os_distro: '', kernel_info: '' });
    expect((await w.call('GET', '/guests/life01/online_cpu_num')).body.output).toBe(2);
    expectError(await w.call('GET', '/guests/nosuch/os_info'), 404);
    expectError(await w.call('GET', '/guests/nosuch/online_cpu_num'), 404);
  });

  it('GET adapters lists the NICs of the directory; 404 for an unknown userid', async () => {
    expect((await w.call('POST', '/guests/life01/nic', { nic: { vdev: '1000' } })).status).toBe(200);
    const res = await w.call<{ adapters: Record<string, string>[] }>('GET', '/guests/life01/adapters');
    expect(res.body.output.adapters).toEqual([expect.objectContaining({ adapter_address: '1000' })]);
    expectError(await w.call('GET', '/guests/nosuch/adapters'), 404);
  });

  it('validates the userid in the path (1-8 alphanumerics)', async () => {
    expectError(await w.call('GET', '/guests/abcdefghi/info'), 400);
  });

  it('DELETE removes the guest from z/VM; an unknown userid is idempotent success', async () => {
    expect((await w.call('DELETE', '/guests/life03')).status).toBe(200);
    expect(await w.hv.describeGuest('LIFE03')).toBeUndefined();
    expect((await w.call<string[]>('GET', '/guests')).body.output).not.toContain('LIFE03');
    expect((await w.call('DELETE', '/guests/nosuch')).status).toBe(200);
  });

  it('GET /smapi_health counters move after hypervisor calls', async () => {
    const before = (await w.call<Record<string, number | string | boolean>>('GET', '/smapi_health')).body.output;
    await w.call('GET', '/guests/life01/info');
    const after = (await w.call<Record<string, number | string | boolean>>('GET', '/smapi_health')).body.output;
    expect(after.totalSuccess as number).toBeGreaterThan(before.totalSuccess as number);
    expect(after.lastSuccess).not.toBe('');
    expect(after.healthy).toBe(true);
    // a refused call counts as a failure
    await w.call('POST', '/guests/life01/action', { action: 'live_resize_cpus', cpu_cnt: 1 });
    await w.call('GET', '/guests/nosuch/user_direct');
    const deprecated = await w.call<never>('GET', '/smapi-healthy');
    expect((deprecated.body as unknown as { SMAPI: Record<string, unknown> }).SMAPI.totalSuccess).toEqual(expect.any(Number));
  });
});
