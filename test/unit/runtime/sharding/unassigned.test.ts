/**
 * The unassigned controllers of a sharded deployment over the embedded store: resources labelled
 * with a host that has no ZHost get HostNotFound; those of a known host are left to its holder; a
 * ZHost that appears takes its resources out of the selection.
 */
import type { ZGuest, ZGuestClass, ZHost, ZVswitch } from '../../../../src/api/index.js';
import { runUnassigned } from '../../../../src/cmd/unassigned-operator.js';
import { silentLogger } from '../../../../src/log.js';
import { createInformer, createMemoryEventRecorder } from '../../../../src/runtime/index.js';
import { HOST_LABEL } from '../../../../src/runtime/sharding/labeler.js';
import { createEmbeddedStore } from '../../../../src/store/index.js';
import { aGuest, aHost } from '../../../contract/store-fixtures.js';

const store = createEmbeddedStore();
const events = createMemoryEventRecorder({ log: silentLogger() });
const hosts = createInformer<ZHost>({ store, kind: 'ZHost', log: silentLogger() });
const stop = new AbortController();
let running: Promise<unknown>;
const selections: string[][] = [];

beforeAll(async () => {
  await store.create(aHost('known'));
  running = Promise.all([hosts.start(stop.signal), runUnassigned({ store, hosts, events, log: silentLogger(), settleMs: 10, onSelection: (known) => selections.push([...known]) }, stop.signal)]);
});

afterAll(async () => {
  stop.abort();
  await running;
  await store.close();
});

/** Waits (bounded by the test's timeout) until `check` holds for what the store has. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const labelled = <T extends ZGuest | ZVswitch>(obj: T, host: string): T => ({ ...obj, metadata: { ...obj.metadata, labels: { [HOST_LABEL]: host } }, spec: { ...obj.spec, host } });
const reason = (obj: ZGuest | ZVswitch | undefined, type: string) => obj?.status?.conditions?.find((c) => c.type === type)?.reason;
const guest = (name: string) => store.get<ZGuest>('ZGuest', { namespace: 'default', name });

describe('resources whose host has no ZHost', () => {
  it('get HostNotFound, a Warning Event and no finalizer; a known host is left alone', async () => {
    await eventually(async () => selections.length, (n) => n > 0);
    expect(selections).toEqual([['known']]);
    await store.create(labelled(aGuest('default', 'typo'), 'nope'));
    await store.create(labelled(aGuest('default', 'placed'), 'known'));
    const typo = await eventually(() => guest('typo'), (g) => reason(g, 'Ready') === 'HostNotFound');
    expect(typo?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', message: 'ZHost nope is not known' });
    expect(typo?.metadata.finalizers ?? []).toEqual([]);
    // the event follows the status write
    const warned = await eventually(async () => events.eventsFor(typo!), (e) => e.length > 0);
    expect(warned).toEqual([expect.objectContaining({ type: 'Warning', reason: 'HostNotFound' })]);
    expect((await guest('placed'))?.status).toBeUndefined();
  });

  it('reports the other kinds too (a cluster-scoped vswitch), with a Warning Event', async () => {
    const v = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZVswitch', metadata: { name: 'vsw1' }, spec: { host: 'nope' } } as ZVswitch;
    await store.create(labelled(v, 'nope'));
    const seen = await eventually(() => store.get<ZVswitch>('ZVswitch', { name: 'vsw1' }), (o) => reason(o, 'Synced') === 'HostNotFound');
    expect(seen?.status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('False');
    const warned = await eventually(async () => events.eventsFor(seen!), (e) => e.length > 0);
    expect(warned).toEqual([expect.objectContaining({ type: 'Warning', reason: 'HostNotFound', message: 'ZHost nope is not known' })]);
  });

  it('records the revisions of a ZGuestClass: a kind with no host, whose controller the unassigned replica runs', async () => {
    const cls = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: 'web' }, spec: { vcpus: 1, memory: '1G' } } as ZGuestClass;
    await store.create(cls);
    const seen = await eventually(() => store.get<ZGuestClass>('ZGuestClass', { name: 'web' }), (c) => (c?.status?.revisions?.length ?? 0) > 0);
    expect(seen?.metadata.labels?.[HOST_LABEL]).toBeUndefined();
    expect(seen?.status?.revisions).toEqual([{ revision: 1, values: cls.spec }]);
    await store.patch('ZGuestClass', { name: 'web' }, { spec: { vcpus: 2 } });
    const edited = await eventually(() => store.get<ZGuestClass>('ZGuestClass', { name: 'web' }), (c) => c?.status?.revisions?.length === 2);
    expect(edited?.status?.revisions?.map((r) => r.values.vcpus)).toEqual([1, 2]);
  });

  it('lets go of a resource once its ZHost appears', async () => {
    await store.create(aHost('late'));
    // the selection starts over without `late`; a guest of it created after that is not reported
    await eventually(async () => selections.at(-1), (known) => known?.join() === 'known,late');
    await store.create(labelled(aGuest('default', 'onlate'), 'late'));
    await store.create(labelled(aGuest('default', 'probe'), 'nope2'));
    await eventually(() => guest('probe'), (g) => reason(g, 'Ready') === 'HostNotFound');
    expect((await guest('onlate'))?.status).toBeUndefined();
  });
});
