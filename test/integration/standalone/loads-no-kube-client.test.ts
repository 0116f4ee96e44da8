/**
 * Standalone never speaks to a cluster, so it must not load @kubernetes/client-node (1–2 s and
 * 75–117 MB to import, issue 38). The compiled standalone is started with a module-resolution hook
 * that reports every package it loads; once it serves REST, the report must name none of the
 * Kubernetes client's modules (and must name fastify, which shows that the hook saw the loading).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { zvmArgs } from '../../../src/cmd/self-command.js';

const HOOK = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('/node_modules/')) appendFileSync(process.env.LOADED_LOG, r.url + '\\n');
  return r;
}`;

describe('standalone process', () => {
  it('serves REST without loading the Kubernetes client', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zvm-no-kube-'));
    try {
      writeFileSync(join(dir, 'hook.mjs'), HOOK);
      writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});`);
      const log = join(dir, 'loaded.txt');
      writeFileSync(log, '');
      const child = spawn(process.execPath, ['--import', join(dir, 'register.mjs'), ...zvmArgs(['standalone', '--state-dir', join(dir, 'state'), '--port', '0', '--admin-port', '0'])], {
        env: { ...process.env, LOADED_LOG: log }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`standalone did not serve REST in time:\n${out}`)), 60_000);
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (/"msg":"Server listening at/.test(out)) { clearTimeout(timer); resolve(); }
        });
        child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`standalone exited (${code}):\n${out}`)); });
      });
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(loaded.some((u) => u.includes('/node_modules/fastify/'))).toBe(true);
      expect(loaded.filter((u) => u.includes('/@kubernetes/'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
