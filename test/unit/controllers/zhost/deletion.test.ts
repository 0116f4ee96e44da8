/**
 * A ZHost that resources still name: its deletion is held (finalizer, condition GuestsRemaining, one
 * Warning Event) until they are gone, then released. Over the embedded store (finalizers honoured).
 */
import type { ZGuest, ZHost } from '../../../../src/api/index.js';
import { createZHostReconciler } from '../../../../src/controllers/index.js';
import { planHostDeletion } from '../../../../src/controllers/zhost/deletion.js';
import type { Hypervisor } from '../../../../src/hypervisor/port.js';
import { silentLogger } from '../../../../src/log.js';
import { createMemoryEventRecorder } from '../../../../src/runtime/index.js';
import { createEmbeddedStore } from '../../../../src/store/index.js';
import { aGuest, aHost } from '../../../contract/store-fixtures.js';

const signal = new AbortController().signal;
const hv = {
  listDirectory: async () => [],
  health: () => ({ totalSuccess: 1, totalFail: 0, lastSuccess: '', lastFail: '', continuousFail: 0, healthy: true }),
} as unknown as Hypervisor;

describe('planHostDeletion', () => {
  const host = aHost('h1');
  const held = { ...host, metadata: { ...host.metadata, finalizers: ['zvm.dev/host-protection'] } };
  const deleting = { ...held, metadata: { ...held.metadata, deletionTimestamp: '2026-11-25T00:00:00Z' } };
  it.each([
    ['a new host gets the finalizer', host, undefined, { op: 'addFinalizer' }],
    ['a held host needs nothing', held, undefined, undefined],
    ['a deleted host with nothing on it is released', deleting, { ZGuest: 0, ZVswitch: 0 }, { op: 'release' }],
    ['a deleted host with guests is held, naming them', deleting, { ZGuest: 2, ZImage: 1 },
      { op: 'hold', message: expect.stringMatching(/^2 ZGuests, 1 ZImage still on this host: .*deletionPolicy: Orphan/) }],
  ] as const)('%s', (_what, obj, dependents, want) => {
    expect(planHostDeletion(obj as ZHost, dependents)).toEqual(want);
  });
});

describe('deleting a ZHost that guests still name', () => {
  it('is held with GuestsRemaining until the last guest is gone, then the ZHost goes', async () => {
    const store = createEmbeddedStore();
    const events = createMemoryEventRecorder({ log: silentLogger() });
    const reconciler = createZHostReconciler({ store, hypervisors: { forHost: () => hv }, events, log: silentLogger() });
    await store.create(aHost('h1'));
    await store.create(aGuest('default', 'g1', { host: 'h1' }));
    await store.create(aGuest('default', 'g2', { host: 'other' }));
    await reconciler.reconcile({ name: 'h1' }, signal);
    expect((await store.get<ZHost>('ZHost', { name: 'h1' }))?.metadata.finalizers).toEqual(['zvm.dev/host-protection']);

    await store.delete('ZHost', { name: 'h1' });
    const held = await reconciler.reconcile({ name: 'h1' }, signal);
    expect(held.requeueAfterMs).toBeGreaterThan(0);
    const host = await store.get<ZHost>('ZHost', { name: 'h1' });
    expect(host?.status?.conditions?.find((c) => c.type === 'GuestsRemaining')).toMatchObject({ status: 'True', message: expect.stringContaining('1 ZGuest still on this host') });
    await reconciler.reconcile({ name: 'h1' }, signal);
    expect(events.eventsFor(host!)).toEqual([expect.objectContaining({ type: 'Warning', reason: 'GuestsRemaining', count: 1 })]);

    await store.delete('ZGuest', { namespace: 'default', name: 'g1' });
    expect((await reconciler.reconcile({ name: 'h1' }, signal)).requeueAfterMs).toBeUndefined();
    expect(await store.get('ZHost', { name: 'h1' })).toBeUndefined();
    expect(await store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'g2' })).toBeDefined();
    await store.close();
  });
});
