/**
 * The embedded store shows a change only once it is on disk, and a change it could not save is
 * undone: no reader, no watcher (so no controller) ever sees it, and its caller gets UNAVAILABLE.
 * The write fails for real: the state file's place is taken by a directory, so the rename fails.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { createEmbeddedStore, type StateStore, type WatchEvent } from '../../../src/store/index.js';
import { aGuest, rejection } from '../../contract/store-fixtures.js';

/** Collects every event of a watch until aborted. */
function record(store: StateStore, signal: AbortSignal): WatchEvent<ZGuest>[] {
  const seen: WatchEvent<ZGuest>[] = [];
  void (async () => {
    for await (const e of store.watch<ZGuest>('ZGuest', { signal })) seen.push(e);
  })();
  return seen;
}

/** Makes every later state write fail (rename over a non-empty directory), until heal() is called. */
function breakStateFile(path: string): { heal(): void } {
  rmSync(path, { force: true });
  mkdirSync(join(path, 'blocker'), { recursive: true });
  return { heal: () => rmSync(path, { recursive: true, force: true }) };
}

describe('embedded store: only durable changes are seen', () => {
  let dir: string;
  let store: StateStore;
  const controller = new AbortController();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zvm-store-durable-'));
    store = createEmbeddedStore({ path: join(dir, 'store.json') });
  });
  afterEach(async () => {
    controller.abort();
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('answers reads with the saved state while a write is still on its way to the disk', async () => {
    const creating = store.create(aGuest('ns', 'early'));
    // get runs at once; the file write needs at least one round of I/O
    expect(await store.get('ZGuest', { namespace: 'ns', name: 'early' })).toBeUndefined();
    const created = await creating;
    expect(await store.get('ZGuest', { namespace: 'ns', name: 'early' })).toEqual(created);
    expect((await store.list('ZGuest')).resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('fails a write it cannot save with UNAVAILABLE, undoes it and publishes nothing', async () => {
    const path = join(dir, 'store.json');
    const watch = new AbortController();
    const events = record(store, watch.signal);
    const kept = await store.create(aGuest('ns', 'kept'));
    const broken = breakStateFile(path);

    const results = await Promise.allSettled([
      store.create(aGuest('ns', 'lost-1')),
      store.patch<ZGuest>('ZGuest', kept.metadata, { spec: { vcpus: 4 } }),
      store.delete('ZGuest', kept.metadata),
      store.create(aGuest('ns', 'lost-2')),
    ]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/state could not be saved/) });
    }
    // as before: the kept guest unchanged, the others never there, for writes and reads alike
    expect(await store.get('ZGuest', kept.metadata)).toEqual(kept);
    expect((await store.list<ZGuest>('ZGuest')).items.map((g) => g.metadata.name)).toEqual(['kept']);
    expect((await rejection(store.create({ ...kept, metadata: { name: 'kept', namespace: 'ns' } }))).code).toBe('ALREADY_EXISTS');
    await new Promise((r) => setTimeout(r, 50));
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED kept']);

    broken.heal();
    const later = await store.create(aGuest('ns', 'later'));
    expect(Number(later.metadata.resourceVersion)).toBeGreaterThan(Number(kept.metadata.resourceVersion));
    await store.close();
    watch.abort();
    const reopened = createEmbeddedStore({ path });
    expect((await reopened.list<ZGuest>('ZGuest')).items.map((g) => [g.metadata.name, g.spec.vcpus])).toEqual([['kept', 1], ['later', 1]]);
    await reopened.close();
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED kept', 'ADDED later']);
  });

  it('answers each of many concurrent writers only once its change is on disk', async () => {
    const path = join(dir, 'store.json');
    const created = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const g = await store.create(aGuest('bulk', `g-${i}`));
      // what a crash right now would leave on disk
      const onDisk = JSON.parse(readFileSync(path, 'utf8')) as { objects: ZGuest[] };
      return onDisk.objects.some((o) => o.metadata.uid === g.metadata.uid);
    }));
    expect(created.every(Boolean)).toBe(true);
  });
});
