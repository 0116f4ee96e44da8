/**
 * `kubectl zvm --help` and TAB completion answer at once (issue 38/39): they load no verb module and
 * not the Kubernetes client (about 1 s and 100 MB to import), which loads only when a verb talks to a
 * cluster. A module-resolution hook in the plugin's process reports every time @kubernetes/client-node
 * is resolved; the times are the bench's (`npm run bench`), not asserted here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runPlugin } from '../../kubectl-zvm/plugin.js';

const MARK = 'LOADED @kubernetes/client-node';

describe('the kubectl plugin loads the Kubernetes client only for a cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-lazy-'));
  let env: Record<string, string>;
  beforeAll(() => {
    writeFileSync(join(dir, 'hook.mjs'), `export async function resolve(s, c, next) {
  if (s === '@kubernetes/client-node') process.stderr.write('${MARK}\\n');
  return next(s, c);
}\n`);
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
    env = { NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'register.mjs')).href}` };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--help lists every verb without it', async () => {
    const r = await runPlugin(['--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}start /m);
    expect(r.stdout).toMatch(/^ {2}image-upload /m);
    expect(r.stderr).not.toContain(MARK);
  });

  it('completion (kubectl_complete-zvm and the completion script) without it', async () => {
    const tab = await runPlugin(['sta'], { env, name: 'kubectl_complete-zvm' });
    expect(tab.stdout).toBe('start\n:4\n');
    expect(tab.stderr).not.toContain(MARK);
    const script = await runPlugin(['completion', 'bash'], { env });
    expect(script.stdout).toContain('complete -F');
    expect(script.stderr).not.toContain(MARK);
  });

  it('--server (a standalone instance) without it; a cluster verb with it', async () => {
    const standalone = await runPlugin(['stop', 'x', '--server', 'http://127.0.0.1:1'], { env });
    expect(standalone.code).toBe(1);
    expect(standalone.stderr).not.toContain(MARK);
    const cluster = await runPlugin(['stop', 'x', '--kubeconfig', join(dir, 'no-such-kubeconfig')], { env });
    expect(cluster.code).toBe(1);
    expect(cluster.stderr).toContain(MARK);
  });
});
