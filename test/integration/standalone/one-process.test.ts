/**
 * One process per state directory (issue 39): two compiled standalones on one --state-dir. The second
 * exits non-zero before it opens anything, naming the first's pid and addresses; the first keeps
 * serving and never sees a failed write. The lock is the kernel's (flock), so a SIGKILLed holder
 * leaves nothing behind that keeps the next start out.
 */
import { join } from 'node:path';
import { http, tempStateDir } from './helpers.js';
import { crash, spawnGroup, startOperator, stopGracefully, type Operator } from './crash-storm-support.js';

describe('one standalone process per state directory', () => {
  const state = tempStateDir();
  let first: Operator | undefined;
  afterAll(async () => {
    if (first) await stopGracefully(first.proc);
    state.cleanup();
  });

  it('refuses a second process on the same state, naming the first; the first keeps every write', async () => {
    first = await startOperator(state.dir);
    // writes to the first while the second tries to start
    const writes = Array.from({ length: 6 }, (_, i) => http(first!.restUrl, 'POST', '/guests', { guest: { userid: `lock0${i}`, vcpus: 1, memory: 512 } }));

    const startedAt = Date.now();
    const second = spawnGroup('second', ['standalone', '--port', '0', '--admin-port', '0', '--state-dir', state.dir, '--auth', 'none'], join(state.dir, 'second.log'));
    const status = await second.exited;
    const tookMs = Date.now() - startedAt;
    const { readFileSync } = await import('node:fs');
    const said = readFileSync(second.logPath, 'utf8');
    console.log(`second standalone exited with ${status} after ${tookMs} ms: ${said.trim()}`);

    expect(status).toBe(1);
    expect(said).toContain(`in use by process ${first.proc.child.pid}`);
    expect(said).toContain(`REST ${first.restUrl}`);
    expect(said).toContain(`admin ${first.adminUrl}`);
    expect(said).toContain('--state-dir');
    expect(said).not.toContain('standalone mode ready');

    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);
    const after = await http(first.restUrl, 'POST', '/guests', { guest: { userid: 'lock09', vcpus: 1, memory: 512 } });
    expect(after.status).toBe(200);
    const listed = (await http<string[]>(first.restUrl, 'GET', '/guests')).body.output;
    expect(listed).toEqual(expect.arrayContaining(['LOCK00', 'LOCK05', 'LOCK09']));
  }, 180_000);

  it('starts again at once on the state of a holder that was killed', async () => {
    await crash(first!.proc);
    first = await startOperator(state.dir);
    const listed = (await http<string[]>(first.restUrl, 'GET', '/guests')).body.output;
    expect(listed).toEqual(expect.arrayContaining(['LOCK00', 'LOCK09']));
  }, 180_000);
});
