/**
 * The TLS material a pooled KubeConfig applies per request (connection-pool.ts): read once per
 * TLS_MATERIAL_TTL_MS and context, not per request, and still picked up after a rotation on disk.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { pooled, TLS_MATERIAL_TTL_MS } from '../../../src/store/kube/connection-pool.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-tls-'));
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

function fileConfig(): KubeConfig {
  for (const f of ['ca', 'cert', 'key']) writeFileSync(join(dir, f), `${f}-1`);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caFile: join(dir, 'ca') }],
    users: [{ name: 'u', certFile: join(dir, 'cert'), keyFile: join(dir, 'key'), impersonateUser: 'someone' }, { name: 'v', certData: Buffer.from('other-cert').toString('base64'), keyData: Buffer.from('other-key').toString('base64') }],
    contexts: [{ name: 'a', cluster: 'c', user: 'u' }, { name: 'b', cluster: 'c', user: 'v' }],
    currentContext: 'a',
  });
  return pooled(kc);
}

type Opts = { ca?: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> };
const applied = (kc: KubeConfig): Opts => {
  const opts: Opts = { headers: { Accept: 'application/json' } };
  (kc as unknown as { applyHTTPSOptions(o: Opts): void }).applyHTTPSOptions(opts);
  return opts;
};

test('requests within the period share one reading of the files, with the headers applied each time', () => {
  const kc = fileConfig();
  const first = applied(kc);
  writeFileSync(join(dir, 'cert'), 'cert-2');
  const second = applied(kc);
  expect(second.cert).toBe(first.cert);
  expect(second.key).toBe(first.key);
  expect(second.ca?.toString()).toBe('ca-1');
  expect(second.headers).toEqual({ Accept: 'application/json', 'Impersonate-User': 'someone' });
});

test('a rotated file is read again once the period has passed', () => {
  const kc = fileConfig();
  expect(applied(kc).cert?.toString()).toBe('cert-1');
  writeFileSync(join(dir, 'cert'), 'cert-2');
  jest.advanceTimersByTime(TLS_MATERIAL_TTL_MS + 1);
  expect(applied(kc).cert?.toString()).toBe('cert-2');
});

test('another current context gets its own material at once', () => {
  const kc = fileConfig();
  expect(applied(kc).cert?.toString()).toBe('cert-1');
  kc.setCurrentContext('b');
  const other = applied(kc);
  expect(other.cert?.toString()).toBe('other-cert');
  expect(other.headers).toEqual({ Accept: 'application/json' });
});
