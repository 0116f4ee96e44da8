import type { Standalone } from '../../../src/cmd/standalone.js';
import type { ZHost } from '../../../src/api/index.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

describe('host routes over real HTTP (standalone, simulated host)', () => {
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

  it('GET /host answers every host info field of the reference, in its order', async () => {
    const res = await http<Record<string, unknown>>(base, 'GET', '/host');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.output)).toEqual([
      'zcc_userid', 'zvm_host', 'hypervisor_hostname', 'hypervisor_type', 'hypervisor_version', 'vcpus', 'vcpus_used', 'cpu_info',
      'memory_mb', 'memory_mb_used', 'ipl_time', 'disk_total', 'disk_used', 'disk_available',
    ]);
    expect(res.body.output).toMatchObject({
      zvm_host: 'ZVMSIM', hypervisor_type: 'zvm', hypervisor_version: 710, vcpus: 16, vcpus_used: 16,
      cpu_info: { architecture: 's390x', cec_model: '3906' }, memory_mb: 1024 * 1024, ipl_time: 'IPL at 01/01/26 00:00:00 UTC',
    });
    const out = res.body.output as { disk_total: number; disk_used: number; disk_available: number };
    expect(out.disk_total).toBeGreaterThan(0);
    expect(out.disk_used + out.disk_available).toBeGreaterThanOrEqual(out.disk_total - 1);
  });

  it('GET /host/guests lists the directory, GET /host/ssi names the SSI members live migration moves between', async () => {
    await http(base, 'POST', '/guests', { guest: { userid: 'hostg1', vcpus: 1, memory: 512 } });
    expect((await http<string[]>(base, 'GET', '/host/guests')).body.output).toContain('HOSTG1');
    const ssi = (await http<string[]>(base, 'GET', '/host/ssi')).body.output;
    expect(ssi.filter((l) => l.startsWith('member_system_id'))).toEqual(['member_system_id = ZVMSIM', 'member_system_id = ZVMSIM2']);
  });

  it('GET /host/diskpool gives totals, details=true the free regions, and 404 for an unknown pool', async () => {
    const totals = await http<Record<string, number>>(base, 'GET', '/host/diskpool?poolname=ECKD:POOL1');
    expect(Object.keys(totals.body.output)).toEqual(['disk_total', 'disk_used', 'disk_available']);
    const details = await http<Record<string, { volume_name: string; dasd_group: string; free_size: number }[]>>(base, 'GET', '/host/diskpool?poolname=ECKD:POOL1&details=TRUE');
    expect(details.body.output.POOL1.length).toBeGreaterThan(0);
    expect(details.body.output.POOL1[0]).toMatchObject({ dasd_group: 'POOL1' });
    // only the literal "true" means details (§9.14)
    expect(Object.keys((await http<object>(base, 'GET', '/host/diskpool?poolname=ECKD:POOL1&details=yes')).body.output)).toEqual(['disk_total', 'disk_used', 'disk_available']);
    const unknown = await http(base, 'GET', '/host/diskpool?poolname=ECKD:NOPE');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ overallRC: 4, rc: 5, rs: 402 });
    expect((await http(base, 'GET', '/host/disk/ECKD:POOL1')).body.output).toEqual(totals.body.output);
  });

  it('refuses bad query parameters with 400', async () => {
    expect((await http(base, 'GET', '/host/diskpool?poolname=POOL1')).status).toBe(400);
    expect((await http(base, 'GET', '/host/diskpool?foo=1')).status).toBe(400);
    expect((await http(base, 'GET', '/host/diskpool?poolname=ECKD:A&poolname=ECKD:B')).status).toBe(400);
    expect((await http(base, 'GET', '/host/volume?volumename=TOOLONG7')).status).toBe(400);
  });

  it('GET /host/diskpool_volumes and /host/volume read the volumes', async () => {
    const vols = await http<Record<string, { diskpool_volumes: string }>>(base, 'GET', '/host/diskpool_volumes?poolname=ECKD:POOL1');
    expect(vols.body.output.POOL1.diskpool_volumes.split(' ').slice(0, 2)).toEqual(['SIM001', 'SIM002']);
    expect((await http(base, 'GET', '/host/volume?volumename=SIM001')).body.output).toEqual({ volume_type: '3390', volume_size: '262668' });
    const missing = await http(base, 'GET', '/host/volume?volumename=NOVOL');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ rc: 404, rs: 2 });
  });

  it('the ZHost controller mirrors host info and SMAPI health into status', async () => {
    const deadline = Date.now() + 15_000;
    let host: ZHost | undefined;
    while (Date.now() < deadline) {
      host = await app.store.get<ZHost>('ZHost', { name: 'default' });
      if (host?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(host?.status).toMatchObject({ hypervisorVersion: '7.1.0', hostname: 'ZVMSIM', smapiHealthy: true, phase: 'Ready' });
    // refreshed once per resync period (one batched query set), so the count is that of the last refresh
    expect(host?.status?.guestCount).toEqual(expect.any(Number));
    expect(host?.status?.info).toMatchObject({ hypervisor_version: 710, vcpus: 16 });
  });
});
