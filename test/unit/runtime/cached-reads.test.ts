import type { Resource, ZGuest } from '../../../src/api/index.js';
import { ConflictError } from '../../../src/errors.js';
import { withCachedReads } from '../../../src/runtime/cached-reads.js';
import { createEmbeddedStore } from '../../../src/store/embedded/embedded-store.js';
import { keyOf, keyString, type ObjectKey, type StateStore } from '../../../src/store/port.js';
import { aGuest } from '../../contract/store-fixtures.js';

/** The embedded store, counting get(); the "informer cache" is a map the test moves by hand. */
function setUp() {
  const store = createEmbeddedStore();
  let gets = 0;
  const counting: StateStore = { ...store, get: (kind, key) => ((gets += 1), store.get(kind, key)) };
  const cache = new Map<string, Resource>();
  const reads = withCachedReads(counting, 'ZGuest', { get: (key: ObjectKey) => cache.get(keyString(key)) });
  const sync = (obj: Resource): void => void cache.set(keyString(keyOf(obj)), obj);
  return { store, reads, cache, sync, gets: () => gets, remembered: () => reads.remembered() };
}

describe('withCachedReads', () => {
  it('answers from the cache, with a copy', async () => {
    const t = setUp();
    const created = await t.store.create(aGuest('ns', 'g1'));
    t.sync(created);
    const read = await t.reads.get<ZGuest>('ZGuest', keyOf(created));
    expect(read).toEqual(created);
    expect(read).not.toBe(created);
    expect(t.gets()).toBe(0);
  });

  it('reads the store for an object the cache does not hold, and for other kinds', async () => {
    const t = setUp();
    const created = await t.store.create(aGuest('ns', 'g1'));
    expect((await t.reads.get('ZGuest', keyOf(created)))?.metadata.uid).toBe(created.metadata.uid);
    await t.reads.get('ZHost', { name: 'h' });
    expect(t.gets()).toBe(2);
  });

  it('answers with its own last write until the cache moves on, then with the cache', async () => {
    const t = setUp();
    const created = await t.store.create(aGuest('ns', 'g1'));
    t.sync(created);
    const patched = await t.reads.patch<ZGuest>('ZGuest', keyOf(created), { metadata: { finalizers: ['zvm.dev/guest'] } });
    expect((await t.reads.get<ZGuest>('ZGuest', keyOf(created)))?.metadata.finalizers).toEqual(['zvm.dev/guest']); // cache still old
    t.sync(patched);
    const later = await t.store.patch<ZGuest>('ZGuest', keyOf(created), { spec: { vcpus: 2 } });
    t.sync(later);
    expect((await t.reads.get<ZGuest>('ZGuest', keyOf(created)))?.spec.vcpus).toBe(2);
    expect(t.gets()).toBe(0);
  });

  it('forgets the writes the cache has moved past, so a copy of every object written is not kept', async () => {
    const t = setUp();
    for (let i = 0; i < 500; i += 1) {
      const created = await t.store.create(aGuest('ns', `g${i}`));
      t.sync(created);
      t.sync(await t.reads.patch<ZGuest>('ZGuest', keyOf(created), { metadata: { finalizers: ['zvm.dev/guest'] } }));
      if (i % 2 === 0) t.cache.delete(keyString(keyOf(created))); // deleted meanwhile
    }
    expect(t.remembered()).toBeLessThan(128);
    // a write the cache has not seen yet is still answered from
    const last = await t.store.create(aGuest('ns', 'last'));
    t.sync(last);
    await t.reads.patch<ZGuest>('ZGuest', keyOf(last), { spec: { vcpus: 7 } });
    expect((await t.reads.get<ZGuest>('ZGuest', keyOf(last)))?.spec.vcpus).toBe(7);
    expect(t.gets()).toBe(0);
  });

  it('reads the store once after a write conflicted', async () => {
    const t = setUp();
    const created = await t.store.create(aGuest('ns', 'g1'));
    t.sync(created);
    await t.store.patch('ZGuest', keyOf(created), { spec: { vcpus: 3 } }); // the cache has not seen it
    await expect(t.reads.updateStatus<ZGuest>({ ...created, status: { phase: 'Running' } })).rejects.toBeInstanceOf(ConflictError);
    expect((await t.reads.get<ZGuest>('ZGuest', keyOf(created)))?.spec.vcpus).toBe(3);
    expect(t.gets()).toBe(1);
    expect((await t.reads.get<ZGuest>('ZGuest', keyOf(created)))?.spec.vcpus).toBe(1); // back to the cache
    expect(t.gets()).toBe(1);
  });
});
