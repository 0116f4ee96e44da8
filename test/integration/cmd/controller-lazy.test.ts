/**
 * The controller of real hosts loads neither the simulator nor ssh2 (issue 38: about 14 MB of RSS it never
 * used): the simulator loads with the first `simulated: true` ZHost, ssh2 with the first management-guest
 * connection. A module-resolution hook in a Node process that imports the compiled controller (what
 * `zvm-operator controller` loads before it talks to a cluster) writes down every module resolved.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { MAIN_JS, zvmArgs } from '../../../src/cmd/self-command.js';

describe('the controller process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-lazy-controller-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports its modules without the simulator or ssh2', async () => {
    zvmArgs([]); // refuses a missing or stale build
    // written to a file before each resolve returns: the hooks' thread's stderr may not drain before the process exits
    const log = join(dir, 'resolved.txt');
    writeFileSync(join(dir, 'hook.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(s, c, next) {
  const r = await next(s, c);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}\n`);
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
    const controller = pathToFileURL(join(MAIN_JS, '..', 'controller.js')).href;
    await promisify(execFile)(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', `await import(${JSON.stringify(controller)})`], { timeout: 60_000 });
    const resolved = readFileSync(log, 'utf8').split('\n');
    expect(resolved).toContain(controller);
    expect(resolved.some((u) => u.includes('/dist/cmd/kube-hosts.js'))).toBe(true);
    expect(resolved.filter((u) => u.includes('/dist/hypervisor/sim/') || u.includes('/node_modules/ssh2/'))).toEqual([]);
  });
});
