/**
 * Errors that say what to do (issue 39), from the compiled command: each names the flag, file, field,
 * value or next step the person at the keyboard needs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runZvmExit } from '../../builders/zvm.js';
import { runPlugin } from '../../kubectl-zvm/plugin.js';
import { describeError } from '../../../src/cmd/kubectl-zvm/run.js';

describe('errors that say what to do', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-errors-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--port abc names the flag and what it takes', async () => {
    const r = await runZvmExit(['standalone', '--port', 'abc', '--state-dir', join(dir, 'st1')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--port takes a port number 0-65535 (0: any free port), not "abc"');
    expect(r.stderr).not.toContain('NaN');
  });

  it('a REST port in use names --port and the address', async () => {
    const held: Server = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as { port: number }).port;
    try {
      const r = await runZvmExit(['standalone', '--port', String(port), '--admin-port', '0', '--state-dir', join(dir, 'st2')], { timeoutMs: 120_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`--port ${port}: 127.0.0.1:${port} is already in use by another process; stop it, or choose another --port`);
    } finally {
      held.close();
    }
  }, 120_000);

  it('apply -f of a missing file, of an empty directory, and a wrong apiVersion with its value', async () => {
    const missing = await runZvmExit(['apply', '-f', join(dir, 'nosuch.yaml')]);
    expect(missing.stderr).toContain(`the path "${join(dir, 'nosuch.yaml')}" does not exist`);
    expect(missing.stderr).not.toContain('ENOENT');
    mkdirSync(join(dir, 'empty'));
    const empty = await runZvmExit(['apply', '-f', join(dir, 'empty')]);
    expect(empty.stderr).toContain('holds no .yaml, .yml or .json files');
    expect(empty.stderr).not.toContain('EISDIR');
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'g.yaml'), 'apiVersion: v1\nkind: ZGuest\nmetadata: {name: g1}\nspec: {userid: G1, vcpus: 1, memory: 1G}\n');
    const bad = await runZvmExit(['apply', '-f', join(dir, 'manifests')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/apiVersion: must be "zvm.dev/v1beta1" or "zvm.dev/v1alpha1" (got "v1")');
  });

  it('kubectl zvm without any cluster configured says to give --kubeconfig or --server', async () => {
    const r = await runPlugin(['stop', 'x'], { env: { HOME: join(dir, 'home'), KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no cluster configured: give --kubeconfig FILE or set KUBECONFIG');
    expect(r.stderr).not.toContain('skipTLSVerify');
  });

  it('the plugin tells a controller\'s refusal as one, not as REST\'s "Unexpected internal error"', () => {
    const said = describeError(new Error('Unexpected internal error in ZVM SDK, error: ImageNotReady: ZImage rhel9 is not Ready'));
    expect(said).toBe('the controller refused: ImageNotReady: ZImage rhel9 is not Ready');
  });
});
