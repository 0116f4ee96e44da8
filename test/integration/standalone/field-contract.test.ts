/**
 * The field contract in standalone, the compiled process as users start it: every ZGuest field of the
 * lifecycle table edited on a live, Ready guest ends in its declared outcome (test/contract/field-contract.ts);
 * and a guest that leaves maxCpus/maxMemory out takes them from its ZHost's spec.defaults.
 */
import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { ZGuest } from '../../../src/api/index.js';
import { spawnZvm } from '../../builders/zvm.js';
import { freePort } from '../../kube/processes.js';
import {
  BASE_SPEC, CONTRACT_CLASS, CONTRACT_USERID, contractFields, EDITS, expectClearedAfterRestart, expectLive, expectPendingRestart, expectRefused,
  isReady, NOT_REACHED, type ContractWorld,
} from '../../contract/field-contract.js';

jest.setTimeout(600_000);
const BOUND_MS = 90_000;

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('field contract (standalone process)', () => {
  let dir: string;
  let proc: ChildProcess;
  let admin: string;
  let rest: string;

  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const world = (name: string, userid: string): ContractWorld => ({
    async patch(spec) {
      const res = await call(admin, 'PATCH', `/resources/zguest/${name}`, { spec });
      return res.status >= 400 ? { refused: JSON.stringify(res.body) } : {};
    },
    async get() {
      return (await call(admin, 'GET', `/resources/zguest/${name}`)).body as ZGuest;
    },
    async directory() {
      return ((await call(rest, 'GET', `/guests/${userid}/user_direct`)).body as { output: { user_direct: string[] } }).output.user_direct;
    },
    until,
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zvm-field-contract-'));
    const [port, adminPort] = [await freePort(), await freePort()];
    admin = `http://127.0.0.1:${adminPort}`;
    rest = `http://127.0.0.1:${port}`;
    proc = spawnZvm(['standalone', '--port', String(port), '--admin-port', String(adminPort), '--state-dir', dir], { stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn' } });
    await until('standalone ready', async () => (await fetch(`${admin}/readyz`)).status === 200);
  });
  afterAll(async () => {
    proc?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await rm(dir, { recursive: true, force: true });
  });

  it('every ZGuest field of the lifecycle table ends in its declared outcome', async () => {
    const fields = contractFields();
    expect(fields.filter((f) => !EDITS[f.path]).map((f) => f.path)).toEqual([]);
    const cls = { apiVersion: 'zvm.dev/v1alpha1', kind: 'ZGuestClass', metadata: { name: CONTRACT_CLASS }, spec: { vcpus: 1, memory: '512M' } };
    expect((await call(admin, 'POST', '/resources/zguestclass', cls)).status).toBe(201);
    const guest = { apiVersion: 'zvm.dev/v1alpha1', kind: 'ZGuest', metadata: { name: 'fcon01', namespace: 'default' }, spec: BASE_SPEC };
    expect((await call(admin, 'POST', '/resources/zguest', guest)).status).toBe(201);
    const w = world('fcon01', CONTRACT_USERID);
    await until('the guest Ready', async () => isReady(await w.get()));

    const reached = fields.filter((f) => !NOT_REACHED[f.path]);
    for (const f of reached.filter((x) => x.lifecycle === 'fixed')) await expectRefused(w, f.path, EDITS[f.path]);
    for (const f of reached.filter((x) => x.lifecycle === 'live')) await expectLive(w, f.path, EDITS[f.path]);
    const atRestart = reached.filter((x) => x.lifecycle === 'atRestart').map((x) => x.path);
    await expectPendingRestart(w, atRestart);
    await expectClearedAfterRestart(w, atRestart);

    // deletionPolicy Orphan (a live field) is read at deletion: the guest stays on the host
    expect((await call(admin, 'DELETE', '/resources/zguest/fcon01')).status).toBe(200);
    await until('the resource gone', async () => (await call(admin, 'GET', '/resources/zguest/fcon01')).status === 404);
    expect((await w.directory())[0]).toMatch(/^USER FCON01 /);
  });

  it('a guest without maxCpus/maxMemory takes them from its ZHost spec.defaults', async () => {
    expect((await call(admin, 'PATCH', '/resources/zhost/default', { spec: { defaults: { maxCpus: 16, maxMemory: '8G' } } })).status).toBe(200);
    const guest = { apiVersion: 'zvm.dev/v1alpha1', kind: 'ZGuest', metadata: { name: 'hdef01', namespace: 'default' }, spec: { userid: 'HDEF01', vcpus: 1, memory: '1G' } };
    expect((await call(admin, 'POST', '/resources/zguest', guest)).status).toBe(201);
    const w = world('hdef01', 'HDEF01');
    await until('the guest Ready', async () => isReady(await w.get()));
    const lines = await w.directory();
    expect(lines).toContain('MACHINE ESA 16');
    expect(lines[0]).toMatch(/^USER HDEF01 \S+ 1G 8G /);
    expect((await w.get()).status?.effective).toMatchObject({ maxCpus: 16, maxMemory: '8G' });
  });
});
