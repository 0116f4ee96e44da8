/**
 * ZGuestClass revisions have one author, the class's reconciler: it records each revision, keeps the
 * ones guests and pools use when the record is full, and (the kind having no host) runs where no host's
 * shard is selected: standalone, one replica without Leases, the replica holding the unassigned Lease.
 */
import { API_VERSION, CLASS_REVISIONS_KEPT, type ZGuest, type ZGuestClass, type ZGuestClassSpec, type ZGuestPool } from '../../../../src/api/index.js';
import { CONTROLLERS } from '../../../../src/controllers/registry.js';
import { createControllerSet, type HostLayout } from '../../../../src/controllers/wiring.js';
import { computeRevisions, createZGuestClassReconciler, needsUsage } from '../../../../src/controllers/zguest-class/reconciler.js';
import { silentLogger } from '../../../../src/log.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';

const spec = (vcpus: number): ZGuestClassSpec => ({ vcpus, memory: '1G' });
const aClass = (generation: number, revisions: number[]): ZGuestClass => ({
  apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'web', generation }, spec: spec(generation),
  status: { revisions: revisions.map((revision) => ({ revision, values: spec(revision) })) },
});

describe('class revisions', () => {
  it('records the current revision once, with the values it has', () => {
    expect(computeRevisions(aClass(3, [1, 2]), new Set())).toEqual([1, 2, 3].map((revision) => ({ revision, values: spec(revision) })));
    expect(computeRevisions(aClass(2, [1, 2]), new Set()).map((r) => r.revision)).toEqual([1, 2]);
    expect(needsUsage(aClass(3, [1, 2]))).toBe(false);
  });

  it('keeps the revisions in use when the record is full, then the newest others', () => {
    const full = Array.from({ length: CLASS_REVISIONS_KEPT }, (_, i) => i + 1);
    const cls = aClass(CLASS_REVISIONS_KEPT + 1, full);
    expect(needsUsage(cls)).toBe(true);
    expect(computeRevisions(cls, new Set()).map((r) => r.revision)).toEqual(full.slice(1).concat(CLASS_REVISIONS_KEPT + 1));
    const kept = computeRevisions(cls, new Set([1, 2])).map((r) => r.revision);
    expect(kept).toHaveLength(CLASS_REVISIONS_KEPT);
    expect(kept.slice(0, 2)).toEqual([1, 2]);
    expect(kept).toContain(CLASS_REVISIONS_KEPT + 1);
    expect(kept).not.toContain(3);
  });

  it('writes the class status: each revision as the class moves on, Ready once the current one is recorded', async () => {
    const store = createEmbeddedStore();
    const reconciler = createZGuestClassReconciler({ store });
    const created = await store.create<ZGuestClass>({ apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'web' }, spec: spec(1) });
    await reconciler.reconcile({ name: 'web' }, new AbortController().signal);
    let cls = (await store.get<ZGuestClass>('ZGuestClass', { name: 'web' }))!;
    expect(cls.status?.revisions).toEqual([{ revision: 1, values: spec(1) }]);
    expect(cls.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'RevisionRecorded' });
    await store.patch('ZGuestClass', { name: 'web' }, { spec: { vcpus: 2 } });
    await reconciler.reconcile({ name: 'web' }, new AbortController().signal);
    cls = (await store.get<ZGuestClass>('ZGuestClass', { name: 'web' }))!;
    expect(cls.status?.revisions?.map((r) => [r.revision, r.values.vcpus])).toEqual([[1, 1], [2, 2]]);
    expect(cls.status?.observedGeneration).toBe(2);
    expect(created.metadata.uid).toBe(cls.metadata.uid);
    await store.close();
  });

  it('asks the guests and pools of the class which revisions they use only when the record is full', async () => {
    const store = createEmbeddedStore();
    const cls = await store.create<ZGuestClass>({ apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'web' }, spec: spec(1) });
    // a full record of revisions 1..10 while the class is at 11; a guest follows 1, a pool makes guests from 2
    await store.updateStatus<ZGuestClass>({ ...cls, status: aClass(1, Array.from({ length: CLASS_REVISIONS_KEPT }, (_, i) => i + 1)).status });
    for (let i = 0; i < CLASS_REVISIONS_KEPT; i++) await store.patch('ZGuestClass', { name: 'web' }, { spec: { memory: `${i + 2}G` } });
    const g = await store.create<ZGuest>({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'g1', namespace: 'default' }, spec: { userid: 'WEB1', class: 'web' } });
    await store.updateStatus<ZGuest>({ ...g, status: { class: { name: 'web', revision: 1, values: spec(1) } } });
    const p = await store.create<ZGuestPool>({ apiVersion: API_VERSION, kind: 'ZGuestPool', metadata: { name: 'p1', namespace: 'default' }, spec: { replicas: 0, useridPrefix: 'WEB', template: { spec: { class: 'web' } } } } as ZGuestPool);
    await store.updateStatus<ZGuestPool>({ ...p, status: { classRevision: 2 } });
    await createZGuestClassReconciler({ store }).reconcile({ name: 'web' }, new AbortController().signal);
    const kept = (await store.get<ZGuestClass>('ZGuestClass', { name: 'web' }))!.status!.revisions!.map((r) => r.revision);
    // the oldest one nobody uses goes (3), not the oldest (1)
    expect(kept).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11]);
    await store.close();
  });
});

describe('where the class controller runs (the kind has no host)', () => {
  const row = CONTROLLERS.filter((r) => r.kind === 'ZGuestClass');
  const base = { store: createEmbeddedStore(), hypervisors: { forHost: () => undefined }, events: { event: () => undefined }, log: silentLogger() };
  const hostLayout = {} as HostLayout;

  it('not in a host\'s shard (its informers select the host label)', () => {
    expect(createControllerSet(row, { ...base, hostLayout, labelSelector: { 'zvm.dev/host': 'h1' } }).controller('ZGuestClass')).toBeUndefined();
  });

  it('in standalone or one replica without Leases, and in the unassigned layout of a sharded deployment', () => {
    expect(createControllerSet(row, { ...base, hostLayout }).controller('ZGuestClass')).toBeDefined();
    expect(createControllerSet(row, { ...base, labelSelector: { 'zvm.dev/host': { notIn: ['h1'] } } }).controller('ZGuestClass')).toBeDefined();
  });
});
