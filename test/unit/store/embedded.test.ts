import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { GoneError } from '../../../src/errors.js';
import { createEmbeddedStore, type StateStore } from '../../../src/store/index.js';
import { describeStoreContract } from '../../contract/store-contract.js';
import { aGuest, aHost, expectRejectsWith, take } from '../../contract/store-fixtures.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'zvm-store-'));
}

describeStoreContract('embedded, in memory', async () => ({ store: createEmbeddedStore(), cleanup: async () => {} }));

describeStoreContract('embedded, with a state file', async () => {
  const dir = await tempDir();
  return { store: createEmbeddedStore({ path: join(dir, 'state.json') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

/** Reads every event a watch yields until it ends, returning them with the error that ended it. */
async function drain(events: AsyncIterable<unknown>): Promise<{ count: number; error?: unknown }> {
  let count = 0;
  try {
    for await (const _event of events) count += 1;
  } catch (error) {
    return { count, error };
  }
  return { count };
}

describe('embedded store: persistence', () => {
  let dir: string;
  const open: StateStore[] = [];
  const openStore = (path: string): StateStore => {
    const store = createEmbeddedStore({ path });
    open.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('restores objects and the resourceVersion counter after a restart', async () => {
    const path = join(dir, 'state.json');
    const first = openStore(path);
    const guest = await first.create(aGuest('team-a'));
    const host = await first.create(aHost('host-1'));
    const patched = await first.patchStatus<ZGuest>('ZGuest', guest.metadata, { phase: 'Running' });
    await first.close();

    const second = openStore(path);
    expect(await second.get('ZGuest', guest.metadata)).toEqual(patched);
    expect(await second.get('ZHost', { name: 'host-1' })).toEqual(host);
    const next = await second.create(aGuest('team-a'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(patched.metadata.resourceVersion));
    expect((await second.list('ZGuest')).resourceVersion).toBe(next.metadata.resourceVersion);
  });

  it('has every acknowledged write on disk before close', async () => {
    const path = join(dir, 'state.json');
    const writer = openStore(path);
    const created = await Promise.all(Array.from({ length: 500 }, (_, i) => writer.create(aGuest('bulk', `g-${i}`))));
    // A second process reading the file now sees everything the first one acknowledged.
    const reader = openStore(path);
    const { items } = await reader.list('ZGuest', { namespace: 'bulk' });
    expect(items).toHaveLength(500);
    expect(new Set(items.map((g) => g.metadata.uid))).toEqual(new Set(created.map((g) => g.metadata.uid)));
  });

  it('never lets a leftover temp file replace a good state file', async () => {
    const path = join(dir, 'state.json');
    const first = openStore(path);
    const guest = await first.create(aGuest('team-a', 'keeper'));
    await first.close();
    await writeFile(`${path}.tmp-4242-deadbeef`, '{"version":1,"resourceVersion":99,"objects":[');

    const second = openStore(path);
    expect(await second.get('ZGuest', guest.metadata)).toEqual(guest);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('starts empty from a directory that does not exist yet and creates it', async () => {
    const path = join(dir, 'nested', 'state.json');
    const store = openStore(path);
    await store.create(aHost('h1'));
    expect(existsSync(path)).toBe(true);
  });

  it('refuses to start over a damaged state file', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, 'not json');
    expect(() => createEmbeddedStore({ path })).toThrow(/not valid JSON/);
  });

  it('makes an old resourceVersion expire across a restart', async () => {
    const path = join(dir, 'state.json');
    const first = openStore(path);
    const created = await first.create(aGuest('team-a'));
    await first.close();
    const second = openStore(path);
    const result = await drain(second.watch('ZGuest', { resourceVersion: '0' }));
    expect(result.error).toBeInstanceOf(GoneError);
    const controller = new AbortController();
    const events = second.watch('ZGuest', { resourceVersion: created.metadata.resourceVersion, signal: controller.signal });
    await second.patch('ZGuest', created.metadata, { spec: { vcpus: 2 } });
    expect((await take(events, 1, controller)).map((e) => e.type)).toEqual(['MODIFIED']);
  });
});

describe('embedded store: watch history', () => {
  it('throws GoneError for a resourceVersion older than the history', async () => {
    const store = createEmbeddedStore({ historyLimit: 5 });
    const first = await store.create(aGuest('ns1'));
    for (let i = 0; i < 10; i += 1) await store.create(aGuest('ns1'));
    const result = await drain(store.watch('ZGuest', { resourceVersion: first.metadata.resourceVersion }));
    expect(result).toEqual({ count: 0, error: expect.any(GoneError) });
    await store.close();
  });

  it('replays from a version still inside the history', async () => {
    const store = createEmbeddedStore({ historyLimit: 5 });
    for (let i = 0; i < 10; i += 1) await store.create(aGuest('ns1'));
    const { resourceVersion } = await store.list('ZGuest');
    const recent = String(Number(resourceVersion) - 3);
    const controller = new AbortController();
    const seen = await take(store.watch('ZGuest', { resourceVersion: recent, signal: controller.signal }), 3, controller);
    expect(seen.map((e) => e.object.metadata.resourceVersion)).toEqual([1, 2, 3].map((d) => String(Number(recent) + d)));
    await store.close();
  });

  it('never blocks writers on a watcher that does not read, and expires it once too far behind', async () => {
    const store = createEmbeddedStore({ historyLimit: 5 });
    const events = store.watch('ZGuest', { namespace: 'ns1' });
    const iterator = events[Symbol.asyncIterator]();
    await store.create(aGuest('ns1'));
    const firstEvent = await iterator.next();
    expect(firstEvent.done).toBe(false);
    for (let i = 0; i < 20; i += 1) await store.create(aGuest('ns1'));
    expect((await store.list('ZGuest')).items).toHaveLength(21);
    const rest = await drain({ [Symbol.asyncIterator]: () => iterator });
    expect(rest.error).toBeInstanceOf(GoneError);
    await store.close();
  });

  it('ends open watches when the store closes', async () => {
    const store = createEmbeddedStore();
    const pending = drain(store.watch('ZGuest'));
    await store.create(aGuest('ns1'));
    await store.close();
    expect(await pending).toEqual({ count: 1 });
  });

  it('rejects a resourceVersion that is not a number', async () => {
    const store = createEmbeddedStore();
    const result = await drain(store.watch('ZGuest', { resourceVersion: 'abc' }));
    expect(result.error).toMatchObject({ code: 'INVALID_INPUT' });
    await store.close();
  });
});

describe('embedded store: scope, names and lifecycle', () => {
  let store: StateStore;
  beforeEach(() => {
    store = createEmbeddedStore();
  });
  afterEach(() => store.close());

  it('puts a namespaced object without a namespace into "default"', async () => {
    const guest = aGuest('x');
    delete guest.metadata.namespace;
    const created = await store.create(guest);
    expect(created.metadata.namespace).toBe('default');
    expect(await store.get('ZGuest', { name: guest.metadata.name })).toEqual(created);
  });

  it('rejects a namespace on a cluster-scoped kind', async () => {
    const host = aHost();
    host.metadata.namespace = 'team-a';
    await expectRejectsWith(store.create(host), 'INVALID_SPEC');
  });

  it.each([['Upper-Case'], ['under_score'], ['-leading-dash']])('rejects the name %s', async (name) => {
    await expectRejectsWith(store.create(aGuest('ns1', name)), 'INVALID_SPEC');
  });

  it('hands out strictly increasing numeric resourceVersions', async () => {
    const a = await store.create(aGuest('ns1'));
    const b = await store.patch('ZGuest', a.metadata, { spec: { vcpus: 2 } });
    const c = await store.create(aHost());
    const versions = [a, b, c].map((o) => Number(o.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(new Set(versions).size).toBe(3);
  });

  it('refuses writes after close', async () => {
    await store.close();
    await expectRejectsWith(store.create(aGuest('ns1')), 'UNAVAILABLE');
  });

  it('rejects an unknown kind', async () => {
    await expectRejectsWith(store.get('ZNothing', { name: 'x' }), 'INVALID_INPUT');
  });
});

describe('embedded store: malformed objects', () => {
  const store = createEmbeddedStore();
  afterAll(() => store.close());

  it.each([
    ['an unknown kind', { apiVersion: 'zvm.dev/v1beta1', kind: 'ZNothing', metadata: { name: 'x' }, spec: {} }, '/kind'],
    ['no metadata', { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', spec: {} }, '/'],
  ])('rejects %s as INVALID_SPEC on create and update', async (_label, obj, path) => {
    const malformed = obj as unknown as ZGuest;
    for (const write of [store.create(malformed), store.update(malformed), store.updateStatus(malformed)]) {
      const err = (await write.then(() => undefined, (e: unknown) => e)) as { code?: string; issues?: { path: string }[] };
      expect(err?.code).toBe('INVALID_SPEC');
      expect(err.issues?.map((i) => i.path)).toContain(path);
    }
  });
});

describe('embedded store: immutable spec fields', () => {
  it('refuses to change a ZGuest userid or host after creation', async () => {
    const store = createEmbeddedStore();
    const created = await store.create({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'imm01', namespace: 'default' }, spec: { userid: 'IMM01', vcpus: 1, memory: '1G' } });
    await expect(store.update({ ...created, spec: { ...(created.spec as object), userid: 'OTHER' } })).rejects.toMatchObject({ code: 'INVALID_SPEC', issues: [{ path: '/spec/userid' }] });
    await expect(store.patch('ZGuest', { namespace: 'default', name: 'imm01' }, { spec: { host: 'elsewhere' } })).rejects.toMatchObject({ code: 'INVALID_SPEC' });
    const changed = await store.patch('ZGuest', { namespace: 'default', name: 'imm01' }, { spec: { vcpus: 2 } });
    expect((changed.spec as { vcpus: number }).vcpus).toBe(2);
    await store.close();
  });
});
