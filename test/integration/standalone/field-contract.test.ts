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
import { apiVersionOf, fixedPaths, KINDS, lifecycleOf, schemaPaths, type ZGuest } from '../../../src/api/index.js';
import { spawnZvm } from '../../builders/zvm.js';
import { freePorts } from '../../kube/processes.js';
import {
  BASE_SPEC, changeAt, CONTRACT_CLASS, KIND_BASES, KIND_LIVE, KIND_LIVE_NOT_REACHED, KIND_REFUSED_HERE, CONTRACT_USERID, contractFields, EDITS, isReady, runContract, type ContractWorld,
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

  /** The kind's object to edit, created once (KIND_BASES). */
  const ensureBase = async (kind: string) => {
    const base = KIND_BASES[kind];
    if (base.spec) {
      const obj = { apiVersion: apiVersionOf(KINDS[kind]), kind, metadata: { name: base.name, ...(base.namespaced ? { namespace: 'default' } : {}) }, spec: base.spec };
      expect([201, 409]).toContain((await call(admin, 'POST', `/resources/${KINDS[kind].plural}`, obj)).status);
    }
    return base;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zvm-field-contract-'));
    const [port, adminPort] = await freePorts(2);
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
    const cls = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: CONTRACT_CLASS }, spec: { vcpus: 1, memory: '512M' } };
    expect((await call(admin, 'POST', '/resources/zguestclass', cls)).status).toBe(201);
    const guest = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'fcon01', namespace: 'default' }, spec: BASE_SPEC };
    expect((await call(admin, 'POST', '/resources/zguest', guest)).status).toBe(201);
    const w = world('fcon01', CONTRACT_USERID);
    await until('the guest Ready', async () => isReady(await w.get()));

    await runContract(w);

    // deletionPolicy Orphan (a live field) is read at deletion: the guest stays on the host
    expect((await call(admin, 'DELETE', '/resources/zguest/fcon01')).status).toBe(200);
    await until('the resource gone', async () => (await call(admin, 'GET', '/resources/zguest/fcon01')).status === 404);
    expect((await w.directory())[0]).toMatch(/^USER FCON01 /);
  });

  it('a guest without maxCpus/maxMemory takes them from its ZHost spec.defaults', async () => {
    expect((await call(admin, 'PATCH', '/resources/zhost/default', { spec: { defaults: { maxCpus: 16, maxMemory: '8G' } } })).status).toBe(200);
    const guest = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'hdef01', namespace: 'default' }, spec: { userid: 'HDEF01', vcpus: 1, memory: '1G' } };
    expect((await call(admin, 'POST', '/resources/zguest', guest)).status).toBe(201);
    const w = world('hdef01', 'HDEF01');
    await until('the guest Ready', async () => isReady(await w.get()));
    const lines = await w.directory();
    expect(lines).toContain('MACHINE ESA 16');
    expect(lines[0]).toMatch(/^USER HDEF01 \S+ 1G 8G /);
    expect((await w.get()).status?.effective).toMatchObject({ maxCpus: 16, maxMemory: '8G' });
  });

  it('every fixed field of every other kind is refused once the object exists, naming the field', async () => {
    const kinds = Object.keys(KINDS).filter((k) => k !== 'ZGuest');
    expect(kinds.filter((k) => !KIND_BASES[k])).toEqual([]);
    for (const kind of kinds) {
      const base = KIND_BASES[kind];
      const plural = KINDS[kind].plural;
      const query = base.namespaced ? '?namespace=default' : '';
      await ensureBase(kind);
      for (const path of fixedPaths(KINDS[kind].fields)) {
        const current = (await call(admin, 'GET', `/resources/${plural}/${base.name}${query}`)).body as { spec: unknown };
        const res = await call(admin, 'PATCH', `/resources/${plural}/${base.name}${query}`, { spec: changeAt(KINDS[kind].spec as never, path, current.spec) });
        expect({ kind, path, status: res.status }).toEqual({ kind, path, status: 422 });
        expect(JSON.stringify(res.body)).toContain(`${path} is immutable`);
      }
    }
  });

  it('every live field of every other kind is shown once edited, or named as not reached here with the reason', async () => {
    const kinds = Object.keys(KINDS).filter((k) => k !== 'ZGuest');
    const live = kinds.flatMap((k) => schemaPaths(KINDS[k].spec).filter((p) => KINDS[k].fields[p]?.lifecycle === 'live').map((p) => ({ kind: k, path: p })));
    const name = (f: { kind: string; path: string }) => `${f.kind}.${f.path}`;
    expect(live.filter((f) => !KIND_LIVE[f.kind]?.[f.path] && !KIND_REFUSED_HERE[name(f)] && !KIND_LIVE_NOT_REACHED[name(f)]).map(name)).toEqual([]);
    for (const f of live.filter((x) => KIND_REFUSED_HERE[name(x)])) {
      const base = await ensureBase(f.kind);
      const url = `/resources/${KINDS[f.kind].plural}/${base.name}${base.namespaced ? '?namespace=default' : ''}`;
      const before = (await call(admin, 'GET', url)).body as { spec: unknown };
      const refused = KIND_REFUSED_HERE[name(f)];
      const res = await call(admin, 'PATCH', url, { spec: refused.to });
      expect({ field: name(f), status: res.status }).toEqual({ field: name(f), status: 422 });
      expect(JSON.stringify(res.body)).toContain(refused.names);
      expect(((await call(admin, 'GET', url)).body as { spec: unknown }).spec).toEqual(before.spec);
    }
    for (const f of live.filter((x) => KIND_LIVE[x.kind]?.[x.path])) {
      expect(lifecycleOf(KINDS[f.kind].fields, f.path)?.lifecycle).toBe('live');
      const base = await ensureBase(f.kind);
      const url = `/resources/${KINDS[f.kind].plural}/${base.name}${base.namespaced ? '?namespace=default' : ''}`;
      const before = (await call(admin, 'GET', url)).body;
      const edit = KIND_LIVE[f.kind][f.path];
      expect({ field: `${f.kind}.${f.path}`, status: (await call(admin, 'PATCH', url, { spec: edit.to })).status }).toEqual({ field: `${f.kind}.${f.path}`, status: 200 });
      const shown = async () => (edit.rest ? edit.rest.holds((await call(rest, 'GET', edit.rest.path)).body?.output) : edit.shows!((await call(admin, 'GET', url)).body, before));
      await until(`${f.kind}.${f.path} shown`, shown);
    }
  });
});
