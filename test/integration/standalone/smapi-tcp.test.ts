import { http, standaloneForSuite } from './helpers.js';

describe('standalone mode with the simulator behind the SMAPI TCP wire (--smapi-tcp)', () => {
  const suite = standaloneForSuite({ smapiTcp: true }, 60_000);

  it('runs the guest lifecycle through a separate simulator process', async () => {
    const created = await http<unknown[]>(suite.app.restUrl, 'POST', '/guests', {
      guest: { userid: 'tcp01', vcpus: 2, memory: 2048, disk_list: [{ size: '1g', is_boot_disk: true }, { size: '1g' }] },
    });
    expect(created.status).toBe(200);
    expect(created.body.output).toHaveLength(2);
    expect((await http(suite.app.restUrl, 'POST', '/guests/tcp01/action', { action: 'start' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'GET', '/guests/tcp01/power_state_real')).body.output).toBe('on');
    expect((await http(suite.app.restUrl, 'POST', '/guests/tcp01/action', { action: 'pause' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'POST', '/guests/tcp01/action', { action: 'unpause' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'POST', '/guests/tcp01/action', { action: 'stop' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'DELETE', '/guests/tcp01')).status).toBe(200);
    expect(await suite.app.hosts.forHost('default')!.describeGuest('TCP01')).toBeUndefined();
    const health = suite.app.hosts.forHost('default')!.health();
    expect(health.totalSuccess).toBeGreaterThan(5);
    expect(health.healthy).toBe(true);
  });
});
