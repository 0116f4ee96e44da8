import { setTimeout as delay } from 'node:timers/promises';
import { API_VERSION, type Resource } from '../../../../src/api/index.js';
import { createInformer } from '../../../../src/runtime/informer.js';
import { createHostLabeler, HOST_LABEL, labelDecision } from '../../../../src/runtime/sharding/labeler.js';
import { createEmbeddedStore } from '../../../../src/store/index.js';
import type { StateStore } from '../../../../src/store/port.js';

/** The host label on the embedded store, and what a label-selected informer (one host's shard) caches. */
let store: StateStore;
let stop: AbortController;

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

function obj(kind: string, name: string, spec: Record<string, unknown>, namespace?: string): Resource {
  return { apiVersion: API_VERSION, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, spec } as Resource;
}

async function labelOf(kind: string, name: string, namespace?: string): Promise<string | undefined> {
  return (await store.get(kind, { name, namespace }))?.metadata.labels?.[HOST_LABEL];
}

beforeEach(() => {
  store = createEmbeddedStore();
  stop = new AbortController();
});

afterEach(async () => {
  stop.abort();
  await store.close();
});

describe('host labeler', () => {
  it('labels each resource with its host from the spec, a ZHost with its own name, an action with its guest\'s host', async () => {
    await store.create(obj('ZHost', 'h2', { simulated: true }));
    await store.create(obj('ZGuest', 'g1', { userid: 'LINUX01', vcpus: 1, memory: '512M', host: 'h2' }, 'default'));
    await store.create(obj('ZGuest', 'g0', { userid: 'LINUX00', vcpus: 1, memory: '512M' }, 'default'));
    await store.create(obj('ZGuestAction', 'move', { guest: 'g1', action: 'LiveMigrate', liveMigrate: { destination: 'ZVM2', operation: 'move' } }, 'default'));
    const running = createHostLabeler({ store }).start(stop.signal);
    await until('every label', async () => (await labelOf('ZGuestAction', 'move', 'default')) !== undefined && (await labelOf('ZGuest', 'g0', 'default')) !== undefined);
    expect(await labelOf('ZHost', 'h2')).toBe('h2');
    expect(await labelOf('ZGuest', 'g1', 'default')).toBe('h2');
    expect(await labelOf('ZGuest', 'g0', 'default')).toBe('default');
    expect(await labelOf('ZGuestAction', 'move', 'default')).toBe('h2');
    stop.abort();
    await running;
  });

  it('labels a pool with its first listed host, else the first ZHost its selector picks, once one exists', async () => {
    const pool = (name: string, placement: Record<string, unknown>) => obj('ZGuestPool', name, { replicas: 1, useridPrefix: 'P', template: { spec: { class: 'c' } }, ...placement }, 'default');
    await store.create({ ...obj('ZHost', 'zb', { simulated: true }), metadata: { name: 'zb', labels: { zone: 'a' } } });
    await store.create(obj('ZHost', 'za', { simulated: true }));
    await store.create(pool('listed', { hosts: ['h9', 'zb'] }));
    await store.create(pool('selected', { hostSelector: { matchLabels: { zone: 'a' } } }));
    await store.create(pool('waiting', { hostSelector: { matchLabels: { zone: 'b' } } }));
    await store.create(pool('plain', {}));
    const running = createHostLabeler({ store, resyncMs: 50 }).start(stop.signal);
    await until('pool labels', async () => (await labelOf('ZGuestPool', 'selected', 'default')) !== undefined && (await labelOf('ZGuestPool', 'plain', 'default')) !== undefined);
    expect(await labelOf('ZGuestPool', 'listed', 'default')).toBe('h9');
    expect(await labelOf('ZGuestPool', 'selected', 'default')).toBe('zb');
    expect(await labelOf('ZGuestPool', 'plain', 'default')).toBe('default');
    expect(await labelOf('ZGuestPool', 'waiting', 'default')).toBeUndefined();
    await store.create({ ...obj('ZHost', 'zc', { simulated: true }), metadata: { name: 'zc', labels: { zone: 'b' } } });
    await until('the waiting pool labelled', async () => (await labelOf('ZGuestPool', 'waiting', 'default')) === 'zc');
    stop.abort();
    await running;
  });

  it('lets a shard informer see only its host, including objects labelled after they were created', async () => {
    const shard = createInformer({ store, kind: 'ZGuest', labelSelector: { [HOST_LABEL]: 'h1' } });
    const unlabelled = createInformer({ store, kind: 'ZGuest', labelSelector: { [HOST_LABEL]: null } });
    void shard.start(stop.signal);
    void unlabelled.start(stop.signal);
    await store.create(obj('ZGuest', 'a', { userid: 'A', vcpus: 1, memory: '512M', host: 'h1' }, 'default'));
    await store.create(obj('ZGuest', 'b', { userid: 'B', vcpus: 1, memory: '512M', host: 'h2' }, 'default'));
    await until('both unlabelled guests in the `!label` cache', () => unlabelled.list().length === 2);
    expect(shard.list()).toEqual([]);
    void createHostLabeler({ store }).start(stop.signal);
    await until('h1\'s guest in its shard', () => shard.list().length === 1);
    expect(shard.list().map((g) => g.metadata.name)).toEqual(['a']);
    await until('the unlabelled cache to empty', () => unlabelled.list().length === 0);
  });

  it('writes at most `concurrency` labels at once and each object once, however many objects wait', async () => {
    for (let i = 0; i < 120; i += 1) await store.create(obj('ZGuest', `m${i}`, { userid: `M${i}`, vcpus: 1, memory: '512M', host: `h${i % 3}` }, 'default'));
    let inFlight = 0;
    let most = 0;
    const patched: string[] = [];
    const counting: StateStore = Object.create(store) as StateStore;
    counting.patch = async (kind, key, patch, opts) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      patched.push(key.name);
      try {
        await delay(2);
        return await store.patch(kind, key, patch, opts);
      } finally {
        inFlight -= 1;
      }
    };
    void createHostLabeler({ store: counting, concurrency: 4, resyncMs: 50 }).start(stop.signal);
    await until('every guest labelled', async () => (await store.list('ZGuest', { namespace: 'default', labelSelector: { [HOST_LABEL]: null } })).items.length === 0);
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThan(1);
    expect(await labelOf('ZGuest', 'm7', 'default')).toBe('h1');
    // resyncs every 50 ms while labelling went on: an object may be written again only if it was still unlabelled in the cache
    expect(patched.length).toBeLessThan(120 * 2);
  });

  it('does not write a label again when a resync re-delivers the version it was written from (its watch event still on the way)', async () => {
    for (const name of ['w1', 'w2', 'w3']) await store.create(obj('ZGuest', name, { userid: name.toUpperCase(), vcpus: 1, memory: '512M', host: 'h1' }, 'default'));
    const patched: string[] = [];
    // an apiserver's watch: the write's event arrives after the write's answer
    const lagging: StateStore = Object.create(store) as StateStore;
    lagging.watch = <T extends Resource>(kind: string, options?: Parameters<StateStore['watch']>[1]) => ({
      async *[Symbol.asyncIterator]() {
        for await (const e of store.watch<T>(kind, options)) {
          await delay(150);
          yield e;
        }
      },
    });
    lagging.patch = async (kind, key, patch, opts) => {
      patched.push(key.name);
      return store.patch(kind, key, patch, opts);
    };
    void createHostLabeler({ store: lagging, resyncMs: 10 }).start(stop.signal);
    await until('every label', async () => (await store.list('ZGuest', { namespace: 'default', labelSelector: { [HOST_LABEL]: null } })).items.length === 0);
    // the resyncs every 10 ms while the events lag re-deliver the unlabelled versions
    await delay(1000);
    expect(patched.sort()).toEqual(['w1', 'w2', 'w3']);
  });

  it('labels for a held host at once, and for another only once its deferral has passed', () => {
    expect(labelDecision(true, 1000, undefined, 5000)).toEqual({ act: 'label' });
    expect(labelDecision(false, 1000, undefined, 5000)).toEqual({ act: 'wait', until: 6000 });
    // looked at again early (an update event): the first deadline stands, it does not move on
    expect(labelDecision(false, 3000, 6000, 5000)).toEqual({ act: 'wait', until: 6000 });
    expect(labelDecision(false, 6000, 6000, 5000)).toEqual({ act: 'label' });
  });

  it('has only the holder of the host write the label when several replicas look at the same objects', async () => {
    const patched: string[] = [];
    const counting: StateStore = Object.create(store) as StateStore;
    counting.patch = async (kind, key, patch, opts) => {
      patched.push(key.name);
      return store.patch(kind, key, patch, opts);
    };
    for (const held of [['h1'], ['h2'], []]) void createHostLabeler({ store: counting, labelsAtOnce: (h) => held.includes(h), deferMs: 60_000 }).start(stop.signal);
    for (const [name, host] of [['a', 'h1'], ['b', 'h2'], ['c', 'h1']]) await store.create(obj('ZGuest', name, { userid: name.toUpperCase(), vcpus: 1, memory: '512M', host }, 'default'));
    await until('the held hosts\' guests labelled', async () => (await labelOf('ZGuest', 'c', 'default')) === 'h1' && (await labelOf('ZGuest', 'b', 'default')) === 'h2');
    await delay(200);
    expect(patched.sort()).toEqual(['a', 'b', 'c']);
  });

  it('still labels an object of a host nobody holds, after the deferral', async () => {
    await store.create(obj('ZGuest', 'lone', { userid: 'LONE', vcpus: 1, memory: '512M', host: 'h9' }, 'default'));
    void createHostLabeler({ store, labelsAtOnce: () => false, deferMs: 100 }).start(stop.signal);
    await until('the label', async () => (await labelOf('ZGuest', 'lone', 'default')) === 'h9');
  });

  it('labels a waiting object at once when its replica acquires the host meanwhile', async () => {
    let held = false;
    await store.create(obj('ZGuest', 'late', { userid: 'LATE', vcpus: 1, memory: '512M', host: 'h1' }, 'default'));
    void createHostLabeler({ store, labelsAtOnce: () => held, deferMs: 60_000 }).start(stop.signal);
    await delay(300);
    expect(await labelOf('ZGuest', 'late', 'default')).toBeUndefined();
    held = true;
    await until('the label', async () => (await labelOf('ZGuest', 'late', 'default')) === 'h1', 10_000);
  });

  it('stamps the claim claimOf gives in the label\'s one write, and none where it gives none', async () => {
    const writes: string[] = [];
    const counting: StateStore = Object.create(store) as StateStore;
    counting.patch = async (kind, key, patch, opts) => {
      writes.push(key.name);
      return store.patch(kind, key, patch, opts);
    };
    await store.create(obj('ZGuest', 'known', { userid: 'KNOWN', vcpus: 1, memory: '512M', host: 'h1' }, 'default'));
    await store.create(obj('ZGuest', 'unseen', { userid: 'UNSEEN', vcpus: 1, memory: '512M', host: 'h9' }, 'default'));
    const claim = { finalizers: ['zvm.dev/guest-protection'], annotations: { 'zvm.dev/owner-uid': 'u1' } };
    void createHostLabeler({ store: counting, claimOf: (_o, host) => (host === 'h1' ? claim : undefined) }).start(stop.signal);
    await until('both labels', async () => (await labelOf('ZGuest', 'known', 'default')) === 'h1' && (await labelOf('ZGuest', 'unseen', 'default')) === 'h9');
    const known = await store.get('ZGuest', { namespace: 'default', name: 'known' });
    expect(known?.metadata.finalizers).toEqual(['zvm.dev/guest-protection']);
    expect(known?.metadata.annotations?.['zvm.dev/owner-uid']).toBe('u1');
    expect((await store.get('ZGuest', { namespace: 'default', name: 'unseen' }))?.metadata.finalizers ?? []).toEqual([]);
    expect(writes.sort()).toEqual(['known', 'unseen']);
  });

  it('keeps a finalizer someone else added meanwhile: the stamped list is guarded by the resourceVersion', async () => {
    let raced = false;
    const racing: StateStore = Object.create(store) as StateStore;
    racing.patch = async (kind, key, patch, opts) => {
      if (!raced && opts?.resourceVersion) {
        raced = true; // another writer's finalizer lands between the cache's view and the label's write
        await store.patch(kind, key, { metadata: { finalizers: ['example.com/other'] } });
      }
      return store.patch(kind, key, patch, opts);
    };
    await store.create(obj('ZGuest', 'raced', { userid: 'RACED', vcpus: 1, memory: '512M', host: 'h1' }, 'default'));
    // the claim is made from what the labeler's cache holds, as claimWithLabel does
    void createHostLabeler({ store: racing, claimOf: (o) => ({ finalizers: [...(o.metadata.finalizers ?? []), 'zvm.dev/guest-protection'] }) }).start(stop.signal);
    await until('the label', async () => (await labelOf('ZGuest', 'raced', 'default')) === 'h1');
    expect(raced).toBe(true);
    expect((await store.get('ZGuest', { namespace: 'default', name: 'raced' }))?.metadata.finalizers).toEqual(['example.com/other', 'zvm.dev/guest-protection']);
  });
});
