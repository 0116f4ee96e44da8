import type { Resource } from '../../../src/api/index.js';
import { HypervisorError } from '../../../src/errors.js';
import { createInformer, type Informer } from '../../../src/runtime/informer.js';
import { eventually } from './fake-clock.js';
import { createFakeStore, type FakeStore } from './fake-store.js';

type Seen = string[];

function record(informer: Informer, seen: Seen): void {
  informer.addHandler({
    onAdd: (o) => seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    onUpdate: (a, b) => seen.push(`update ${a.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
}

describe('informer', () => {
  let store: FakeStore;
  let informer: Informer;
  let seen: Seen;
  let running: Promise<void>;

  function start(resyncMs?: number): void {
    informer = createInformer({ store, kind: 'ZGuest', resyncMs, backoff: { initialMs: 1, maxMs: 5 } });
    record(informer, seen);
    running = informer.start();
  }

  /** Synced and watching: knobs that act on open watches are meaningful from here on. */
  async function watching(): Promise<void> {
    expect(await informer.waitForSync()).toBe(true);
    await eventually(() => store.openWatches() === 1);
  }

  beforeEach(() => {
    store = createFakeStore();
    seen = [];
  });

  afterEach(async () => {
    informer.stop();
    await running;
  });

  it('lists, then delivers adds, updates and deletes from the watch into its cache', async () => {
    store.put('a');
    store.put('b');
    start();
    expect(await informer.waitForSync()).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    await eventually(() => store.openWatches() === 1);
    expect(store.watchCalls).toEqual(['2']);
    store.put('a', { v: 2 });
    store.remove('b');
    store.put('c');
    await eventually(() => seen.length === 5);
    expect(seen).toEqual(['add a@1', 'add b@2', 'update a@1->3', 'delete b', 'add c@5']);
    expect(informer.get({ namespace: 'default', name: 'a' })?.spec).toEqual({ v: 2 });
    expect(informer.get({ namespace: 'default', name: 'b' })).toBeUndefined();
    expect(informer.list().map((o: Resource) => o.metadata.name).sort()).toEqual(['a', 'c']);
  });

  it('re-lists on GoneError and emits the difference against its cache', async () => {
    store.put('a');
    store.put('b');
    start();
    await watching();
    store.endWatches();
    // Changes the informer misses while its watch is down, then history is compacted away.
    store.put('b', { v: 2 });
    store.remove('a');
    store.put('c');
    store.compact();
    await eventually(() => seen.length === 5);
    expect(seen.slice(2).sort()).toEqual(['add c@5', 'delete a', 'update b@2->3']);
    store.put('d');
    await eventually(() => seen.includes('add d@6'));
    expect(informer.list().map((o) => o.metadata.name).sort()).toEqual(['b', 'c', 'd']);
    expect(store.listCalls()).toBe(2);
  });

  it('restarts a watch that simply ends from the last version it saw', async () => {
    store.put('a');
    start();
    await watching();
    store.put('a', { v: 2 });
    await eventually(() => seen.length === 2);
    store.endWatches();
    await eventually(() => store.watchCalls.length === 2 && store.openWatches() === 1);
    expect(store.watchCalls).toEqual(['1', '2']);
    store.put('b');
    await eventually(() => seen.includes('add b@3'));
  });

  it('restarts a watch that fails with another error without re-listing', async () => {
    start();
    await watching();
    store.failNextWatch(new HypervisorError('watch', 1, 2, 'connection reset', { retryable: true }));
    store.endWatches();
    await eventually(() => store.openWatches() === 1 && store.watchCalls.length === 3);
    store.put('x');
    await eventually(() => seen.includes('add x@1'));
    expect(seen).toEqual(['add x@1']);
    expect(store.listCalls()).toBe(1);
  });

  it('only advances its version on a bookmark', async () => {
    store.put('a');
    start();
    await watching();
    const bookmarkRv = store.bookmark();
    store.endWatches(); // the open watch still hands out the bookmark before it ends
    await eventually(() => store.watchCalls.length === 2);
    expect(store.watchCalls).toEqual(['1', bookmarkRv]);
    expect(seen).toEqual(['add a@1']);
    expect(informer.list()).toHaveLength(1);
  });

  it('re-delivers every cached object as an update on resync', async () => {
    store.put('a');
    store.put('b');
    start(5);
    await watching();
    await eventually(() => seen.filter((s) => s.startsWith('update')).length >= 4);
    expect(seen).toContain('update a@1->1');
    expect(seen).toContain('update b@2->2');
  });

  it('delivers already cached objects as adds to a handler registered late', async () => {
    store.put('a');
    start();
    await watching();
    const late: Seen = [];
    record(informer, late);
    expect(late).toEqual(['add a@1']);
  });

  it('keeps delivering to other handlers when one throws', async () => {
    start();
    await watching();
    informer.addHandler({ onAdd: () => { throw new TypeError('bad handler'); } });
    store.put('a');
    await eventually(() => seen.includes('add a@1'));
  });

  it('reports not synced to a waiter when stopped before the first list', async () => {
    informer = createInformer({ store, kind: 'ZGuest' });
    const waiting = informer.waitForSync();
    informer.stop();
    running = informer.start();
    expect(await waiting).toBe(false);
    await running;
  });
});
