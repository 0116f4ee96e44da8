import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '../../../src/durable/index.js';
import type { ZGuest } from '../../../src/api/index.js';
import { GoneError } from '../../../src/errors.js';
import { createEmbeddedStore, createSqliteStore, type StateStore } from '../../../src/store/index.js';
import { describeStoreContract } from '../../contract/store-contract.js';
import { aGuest, aHost, take } from '../../contract/store-fixtures.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'zvm-sqlite-'));
}

describeStoreContract('sqlite', async () => {
  const dir = await tempDir();
  return { store: createSqliteStore({ path: join(dir, 'state.db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
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

describe('sqlite store', () => {
  let dir: string;
  const open: StateStore[] = [];
  const openStore = (name = 'state.db', historyLimit?: number, migrateFrom?: string): StateStore => {
    const store = createSqliteStore({ path: join(dir, name), historyLimit, migrateFrom });
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

  it('restores objects, the resourceVersion counter and watch history after a restart', async () => {
    const first = openStore();
    const guest = await first.create(aGuest('team-a'));
    const host = await first.create(aHost('host-1'));
    const patched = await first.patchStatus<ZGuest>('ZGuest', guest.metadata, { phase: 'Running' });
    await first.close();

    const second = openStore();
    expect(await second.get('ZGuest', guest.metadata)).toEqual(patched);
    expect(await second.get('ZHost', { name: 'host-1' })).toEqual(host);
    const controller = new AbortController();
    const replayed = await take(second.watch('ZGuest', { resourceVersion: guest.metadata.resourceVersion, signal: controller.signal }), 1, controller);
    expect(replayed.map((e) => e.object.metadata.resourceVersion)).toEqual([patched.metadata.resourceVersion]);
    const next = await second.create(aGuest('team-a'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(patched.metadata.resourceVersion));
    expect((await second.list('ZGuest')).resourceVersion).toBe(next.metadata.resourceVersion);
  });

  it('keeps one row per object with its indexed fields beside the JSON', async () => {
    const store = openStore();
    const created = await store.create(aGuest('team-a', 'row-check'));
    const patched = await store.patch<ZGuest>('ZGuest', created.metadata, { spec: { vcpus: 2 } });
    const db = openSqliteFile(join(dir, 'state.db'), { readonly: true });
    const rows = db.prepare('SELECT kind, namespace, name, uid, resource_version, generation, json FROM objects WHERE name = ?').all('row-check') as Array<Record<string, unknown>>;
    const changes = db.pluck('SELECT type FROM changes ORDER BY rv').all();
    db.close();
    expect(rows).toEqual([{
      kind: 'ZGuest', namespace: 'team-a', name: 'row-check', uid: created.metadata.uid,
      resource_version: Number(patched.metadata.resourceVersion), generation: 2, json: JSON.stringify(patched),
    }]);
    expect(changes).toEqual(['ADDED', 'MODIFIED']);
  });

  it('lists in namespace and name order, whatever order the rows were written in', async () => {
    const store = openStore();
    for (const [ns, name] of [['b', 'y'], ['a', 'z'], ['b', 'x'], ['a', 'a']]) await store.create(aGuest(ns, name));
    expect((await store.list('ZGuest')).items.map((g) => `${g.metadata.namespace}/${g.metadata.name}`)).toEqual(['a/a', 'a/z', 'b/x', 'b/y']);
  });

  it('commits a burst of concurrent writes together and has all of them on disk when they resolve', async () => {
    const writer = openStore();
    const created = await Promise.all(Array.from({ length: 300 }, (_, i) => writer.create(aGuest('bulk', `g-${i}`))));
    // A second process reading the database now sees everything the first one acknowledged.
    const reader = openSqliteFile(join(dir, 'state.db'), { readonly: true });
    const uids = reader.pluck("SELECT uid FROM objects WHERE namespace = 'bulk'").all();
    reader.close();
    expect(new Set(uids)).toEqual(new Set(created.map((g) => g.metadata.uid)));
  });

  it('answers 410 Gone for a resourceVersion older than the retained changes, and replays a recent one', async () => {
    const store = openStore('state.db', 5);
    const first = await store.create(aGuest('ns1'));
    for (let i = 0; i < 10; i += 1) await store.create(aGuest('ns1'));
    expect(await drain(store.watch('ZGuest', { resourceVersion: first.metadata.resourceVersion }))).toEqual({ count: 0, error: expect.any(GoneError) });
    const { resourceVersion } = await store.list('ZGuest');
    const recent = String(Number(resourceVersion) - 3);
    const controller = new AbortController();
    const seen = await take(store.watch('ZGuest', { resourceVersion: recent, signal: controller.signal }), 3, controller);
    expect(seen.map((e) => e.object.metadata.resourceVersion)).toEqual([1, 2, 3].map((d) => String(Number(recent) + d)));
  });

  it('ends a watcher that falls too far behind with GoneError without blocking writers', async () => {
    const store = openStore('state.db', 5);
    const iterator = store.watch('ZGuest', { namespace: 'ns1' })[Symbol.asyncIterator]();
    await store.create(aGuest('ns1'));
    expect((await iterator.next()).done).toBe(false);
    for (let i = 0; i < 20; i += 1) await store.create(aGuest('ns1'));
    expect((await store.list('ZGuest')).items).toHaveLength(21);
    const rest = await drain({ [Symbol.asyncIterator]: () => iterator });
    expect(rest.error).toBeInstanceOf(GoneError);
  });

  it('ends open watches when the store closes', async () => {
    const store = openStore();
    const pending = drain(store.watch('ZGuest'));
    await store.create(aGuest('ns1'));
    await store.close();
    expect(await pending).toEqual({ count: 1 });
  });

  it('fails writes with UNAVAILABLE while another process holds the write lock, and keeps working afterwards', async () => {
    const store = createSqliteStore({ path: join(dir, 'state.db'), busyTimeoutMs: 50 });
    open.push(store);
    const kept = await store.create(aGuest('ns1', 'kept'));
    // another connection holds the write lock past the busy timeout: the batch cannot begin
    const other = openSqliteFile(join(dir, 'state.db'), { busyTimeoutMs: 0 });
    other.exec('BEGIN IMMEDIATE');
    const failed = await Promise.allSettled([store.create(aGuest('ns1', 'lost-1')), store.patch('ZGuest', kept.metadata, { spec: { vcpus: 3 } })]);
    other.exec('ROLLBACK');
    other.close();
    expect(failed.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'fulfilled'))).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
    expect(await store.get('ZGuest', { namespace: 'ns1', name: 'lost-1' })).toBeUndefined();
    expect((await store.get<ZGuest>('ZGuest', kept.metadata))?.spec.vcpus).toBe(1);
    const after = await store.create(aGuest('ns1', 'after'));
    expect(Number(after.metadata.resourceVersion)).toBe(Number(kept.metadata.resourceVersion) + 1);
  });

  it('imports a JSON state file once and keeps it as .migrated', async () => {
    const jsonPath = join(dir, 'store.json');
    const old = createEmbeddedStore({ path: jsonPath });
    const guest = await old.create(aGuest('team-a', 'old-guest'));
    const host = await old.create(aHost('old-host'));
    await old.close();

    const store = openStore('state.db', undefined, jsonPath);
    expect(await store.get('ZGuest', guest.metadata)).toEqual(guest);
    expect(await store.get('ZHost', { name: 'old-host' })).toEqual(host);
    expect(existsSync(jsonPath)).toBe(false);
    expect(existsSync(`${jsonPath}.migrated`)).toBe(true);
    const next = await store.create(aGuest('team-a'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(host.metadata.resourceVersion));
    // history does not reach back before the import
    expect((await drain(store.watch('ZGuest', { resourceVersion: '0' }))).error).toBeInstanceOf(GoneError);
  });

  it('refuses to start when both a JSON state file and a populated database exist', async () => {
    const store = openStore();
    await store.create(aHost('h1'));
    await store.close();
    const jsonPath = join(dir, 'store.json');
    const old = createEmbeddedStore({ path: jsonPath });
    await old.create(aHost('h2'));
    await old.close();
    expect(() => createSqliteStore({ path: join(dir, 'state.db'), migrateFrom: jsonPath })).toThrow(/move one of them away/);
    expect(existsSync(jsonPath)).toBe(true);
  });
});
