/**
 * get_console_output over real HTTP with the simulator in its own process behind the SMAPI TCP
 * wire (where the simulator's in-process `console_text` cannot reach): the text comes through
 * Image_Console_Get plus the management guest's reader (vmur over SSH).
 */
import type { Standalone } from '../../../src/cmd/standalone.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

describe('get_console_output in standalone mode with --smapi-tcp', () => {
  const state = tempStateDir();
  let app: Standalone;
  beforeAll(async () => {
    app = await startTestStandalone(state.dir, { smapiTcp: true });
    const created = await http(app.restUrl, 'POST', '/guests', { guest: { userid: 'con01', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } });
    expect(created.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });

  const consoleOf = () => http<string>(app.restUrl, 'POST', '/guests/con01/action', { action: 'get_console_output' });

  it('answers an empty string while the guest is logged off', async () => {
    const res = await consoleOf();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ overallRC: 0, output: '' });
  });

  it('answers the console text with the guest logon line once it runs, and keeps it on later calls', async () => {
    expect((await http(app.restUrl, 'POST', '/guests/con01/action', { action: 'start' })).status).toBe(200);
    const res = await consoleOf();
    expect(res.status).toBe(200);
    expect(res.body.overallRC).toBe(0);
    expect(res.body.output).toMatch(/^\d{8} LOGON CON01 ON ZVMSIM /m);
    expect(res.body.output).toMatch(/^\d{8} IPL 0100$/m);

    expect((await http(app.restUrl, 'POST', '/guests/con01/action', { action: 'pause' })).status).toBe(200);
    const later = await consoleOf();
    expect(later.body.output.startsWith(res.body.output)).toBe(true);
    expect(later.body.output.slice(res.body.output.length)).toContain('CP STOP (PAUSED)');
  });
});
