import type { Standalone } from '../../../src/cmd/standalone.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

describe('standalone mode with the simulator behind the SMAPI TCP wire (--smapi-tcp)', () => {
  const state = tempStateDir();
  let app: Standalone;
  beforeAll(async () => {
    app = await startTestStandalone(state.dir, { smapiTcp: true });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });

  it('runs the guest lifecycle through a separate simulator process', async () => {
    const created = await http<unknown[]>(app.restUrl, 'POST', '/guests', {
      guest: { userid: 'tcp01', vcpus: 2, memory: 2048, disk_list: [{ size: '1g', is_boot_disk: true }, { size: '1g' }] },
    });
    expect(created.status).toBe(200);
    expect(created.body.output).toHaveLength(2);
    expect((await http(app.restUrl, 'POST', '/guests/tcp01/action', { action: 'start' })).status).toBe(200);
    expect((await http(app.restUrl, 'GET', '/guests/tcp01/power_state_real')).body.output).toBe('on');
    expect((await http(app.restUrl, 'POST', '/guests/tcp01/action', { action: 'pause' })).status).toBe(200);
    expect((await http(app.restUrl, 'POST', '/guests/tcp01/action', { action: 'unpause' })).status).toBe(200);
    expect((await http(app.restUrl, 'POST', '/guests/tcp01/action', { action: 'stop' })).status).toBe(200);
    expect((await http(app.restUrl, 'DELETE', '/guests/tcp01')).status).toBe(200);
    expect(await app.hosts.forHost('default')!.describeGuest('TCP01')).toBeUndefined();
    const health = app.hosts.forHost('default')!.health();
    expect(health.totalSuccess).toBeGreaterThan(5);
    expect(health.healthy).toBe(true);
  });
});
