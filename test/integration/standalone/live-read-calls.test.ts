/**
 * Live reads spare the host (issue 38), counted at the simulated host over real HTTP: 1 000
 * concurrent GET /host after a write cost one set of host queries (single-flight, then the facts
 * period), and GET …/power_state asks SMAPI one question (the guest's existence comes from our state).
 */
import { http, standaloneForSuite } from './helpers.js';

const HOST_SET = ['System_Information_Query', 'System_Processor_Query', 'System_Performance_Information_Query'];
const POOL = 'Image_Volume_Space_Query_DM';

function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [fn, n] of Object.entries(after)) if (n !== (before[fn] ?? 0)) out[fn] = n - (before[fn] ?? 0);
  return out;
}

describe('standalone: SMAPI calls of the live-read routes', () => {
  // a long facts period and drift period, so that nothing but the requests under test asks the host
  const suite = standaloneForSuite({ hostFactsPeriod: '10m', driftPeriod: '10m' });
  const counts = () => suite.app.simCallCounts();

  it('answers 1 000 concurrent GET /host after a write with one set of host queries', async () => {
    // a guest created through REST: its SMAPI writes make any earlier host facts stale
    expect((await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'host01', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } })).status).toBe(200);
    const before = counts();
    const answers = await Promise.all(Array.from({ length: 1000 }, () => http<Record<string, unknown>>(suite.app.restUrl, 'GET', '/host')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // every answer is the same read: the pool figures include the disk just created
    const first = answers[0].body.output;
    expect(first).toMatchObject({ hypervisor_type: 'zvm', disk_used: expect.any(Number) });
    expect(answers.every((a) => JSON.stringify(a.body.output) === JSON.stringify(first))).toBe(true);
    const made = delta(before, counts());
    expect(Object.fromEntries(HOST_SET.map((fn) => [fn, made[fn]]))).toEqual(Object.fromEntries(HOST_SET.map((fn) => [fn, 1])));
    expect(made[POOL]).toBe(2);

    // within the period and with no write in between, the next reader costs no call at all
    const again = counts();
    expect((await http(suite.app.restUrl, 'GET', '/host')).status).toBe(200);
    expect(delta(again, counts())).toEqual({});
  });

  it('answers GET …/power_state with one SMAPI call, and 404 for a guest we do not manage without asking the host', async () => {
    expect((await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'pwr01', vcpus: 1, memory: 1024 } })).status).toBe(200);
    const before = counts();
    const res = await http(suite.app.restUrl, 'GET', '/guests/pwr01/power_state');
    expect(res.status).toBe(200);
    expect(res.body.output).toBe('off');
    expect(delta(before, counts())).toEqual({ Image_Status_Query: 1 });

    const unknown = counts();
    expect((await http(suite.app.restUrl, 'GET', '/guests/nosuch1/power_state')).status).toBe(404);
    expect(delta(unknown, counts())).toEqual({});
  });
});
