import { API_VERSION, validateResource, type ZGuest, type ZGuestClass, type ZGuestClassSpec } from '../../../../src/api/index.js';
import { planClassBinding, resolveGuestSpec } from '../../../../src/controllers/zguest/class.js';
import { computeRevisions, createZGuestClassReconciler } from '../../../../src/controllers/zguest-class/reconciler.js';
import { aControllerHarness } from '../../../builders/controller-harness.js';

const small: ZGuestClassSpec = { vcpus: 2, memory: '4G', maxMemory: '16G', profile: 'WEBPROF', disks: [{ size: '10G', boot: true }, { size: '2G', format: 'xfs' }], osVersion: 'rhel9.2' };

function aClass(spec: ZGuestClassSpec = small, generation = 1): ZGuestClass {
  return { apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'small', generation }, spec };
}

function aClassGuest(spec: Partial<ZGuest['spec']> = {}, status?: ZGuest['status']): ZGuest {
  return { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'g1', namespace: 'default' }, spec: { userid: 'WEB1', class: 'small', ...spec }, ...(status ? { status } : {}) };
}

describe('resolveGuestSpec', () => {
  it('takes every field the guest leaves out from the class, and the guest wins where it sets one', () => {
    const r = resolveGuestSpec({ userid: 'WEB1', class: 'small', memory: '8G', network: { interfaces: [] } }, small);
    expect(r).toEqual({
      spec: {
        userid: 'WEB1', class: 'small', vcpus: 2, memory: '8G', maxMemory: '16G', profile: 'WEBPROF',
        disks: [{ size: '10G', boot: true }, { size: '2G', format: 'xfs' }], network: { osVersion: 'rhel9.2', interfaces: [] },
      },
    });
  });

  it('takes a list whole: the guest\'s disks replace the class layout', () => {
    const r = resolveGuestSpec({ userid: 'WEB1', class: 'small', disks: [{ size: '1G' }] }, small);
    expect('spec' in r && r.spec.disks).toEqual([{ size: '1G' }]);
  });

  it('says what neither the guest nor the class gives', () => {
    const r = resolveGuestSpec({ userid: 'WEB1', class: 'tiny', network: { interfaces: [] } }, { vcpus: 1 });
    expect(r).toEqual({ problem: { reason: 'ClassIncomplete', severity: 'error', message: 'memory, network.osVersion set by neither the spec nor ZGuestClass tiny' } });
  });

  it('never shares the class lists with the result', () => {
    const r = resolveGuestSpec({ userid: 'WEB1', class: 'small' }, small);
    if (!('spec' in r)) throw new Error('not resolved');
    r.spec.disks?.push({ size: '1G' });
    expect(small.disks).toHaveLength(2);
  });
});

describe('planClassBinding', () => {
  const recorded = { name: 'small', revision: 1, values: small };

  it('records the class as it is when the guest has none yet', () => {
    expect(planClassBinding(aClassGuest(), aClass())).toEqual({ binding: recorded, record: true });
  });

  it('keeps the recorded revision when the class has moved on', () => {
    const edited = aClass({ ...small, vcpus: 8 }, 2);
    expect(planClassBinding(aClassGuest({}, { class: recorded }), edited)).toEqual({ binding: recorded, record: false });
  });

  it('takes the current revision when spec.classRevision names it', () => {
    const edited = aClass({ ...small, vcpus: 8 }, 2);
    const plan = planClassBinding(aClassGuest({ classRevision: 2 }, { class: recorded }), edited);
    expect(plan).toEqual({ binding: { name: 'small', revision: 2, values: { ...small, vcpus: 8 } }, record: true });
  });

  it('keeps the recorded revision and says so when the revision asked for is not the current one', () => {
    const plan = planClassBinding(aClassGuest({ classRevision: 5 }, { class: recorded }), aClass(small, 2));
    expect(plan.binding).toBe(recorded);
    expect(plan.record).toBe(false);
    expect(plan.problem).toMatchObject({ reason: 'ClassRevisionUnavailable', severity: 'blocked' });
  });

  it('binds a new guest to an older revision the class kept, and keeps the current one once', () => {
    const edited = { ...aClass({ ...small, vcpus: 8 }, 2), status: { revisions: [{ revision: 1, values: small }] } };
    expect(planClassBinding(aClassGuest({ classRevision: 1 }), edited)).toEqual({ binding: recorded, record: true });
    // the class's own reconciler records the current revision once
    expect(computeRevisions(edited, new Set()).map((r) => r.revision)).toEqual([1, 2]);
    expect(computeRevisions({ ...edited, metadata: { name: 'small', generation: 1 } }, new Set())).toEqual(edited.status.revisions);
  });

  it('cannot bind a new guest to a class that does not exist', () => {
    expect(planClassBinding(aClassGuest(), undefined)).toEqual({ binding: undefined, record: false, problem: { reason: 'ClassNotFound', severity: 'error', message: 'ZGuestClass small is not known' } });
  });

  it('records another class when the guest names another one, and forgets the class when it names none', () => {
    const other = { ...aClass(), metadata: { name: 'large', generation: 3 } };
    expect(planClassBinding(aClassGuest({ class: 'large' }, { class: recorded }), other)).toMatchObject({ binding: { name: 'large', revision: 3 }, record: true });
    expect(planClassBinding(aClassGuest({ class: undefined }, { class: recorded }), undefined)).toEqual({ binding: undefined, record: true });
  });
});

describe('ZGuest with a class: validation', () => {
  it('accepts a guest that leaves vcpus and memory to its class and refuses one without either', () => {
    expect(() => validateResource(aClassGuest())).not.toThrow();
    expect(() => validateResource(aClassGuest({ class: undefined }))).toThrow('vcpus and memory are required unless spec.class names a ZGuestClass');
  });
});

describe('ZGuest reconciler with a class', () => {
  it('builds the guest from the class, and a class edit reaches it only once it asks for the new revision', async () => {
    const h = aControllerHarness();
    // the class's own reconciler records each revision; the guest takes one only once it is recorded
    const recordRevision = () => createZGuestClassReconciler({ store: h.store }).reconcile({ name: 'small' }, new AbortController().signal);
    await h.store.create(aClass());
    const key = await h.createGuest({ class: 'small', vcpus: undefined, memory: undefined, disks: undefined });
    expect((await h.reconciler.reconcile(key, new AbortController().signal)).requeueAfterMs).toBeGreaterThan(0);
    expect(h.hv.entries.size).toBe(0); // waiting for the revision: nothing made yet
    await recordRevision();
    await h.settle(key);
    expect((await h.hv.describeGuest('LINUX01'))?.directory).toMatchObject({ cpus: 2, memory: '4G', maxMemory: '16G' });
    expect((await h.hv.describeGuest('LINUX01'))?.directory.disks.map((d) => d.vdev)).toEqual(['0100', '0101']);
    expect((await h.get(key))?.status?.class).toEqual({ name: 'small', revision: 1, values: small });

    await h.store.patch('ZGuestClass', { name: 'small' }, { spec: { vcpus: 4 } });
    await recordRevision();
    await h.settle(key);
    expect((await h.hv.describeGuest('LINUX01'))?.directory.cpus).toBe(2);

    await h.store.patch('ZGuest', key, { spec: { classRevision: 2 } });
    await h.settle(key);
    expect((await h.hv.describeGuest('LINUX01'))?.directory.cpus).toBe(4);
    expect((await h.get(key))?.status?.class?.revision).toBe(2);
  });

  it('reports a class that does not exist and creates nothing', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ class: 'missing', vcpus: undefined, memory: undefined });
    const signal = new AbortController().signal;
    expect((await h.reconciler.reconcile(key, signal)).requeueAfterMs).toBeGreaterThan(0); // looked at again: the class may come
    const guest = await h.get(key);
    expect(guest?.status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'False', reason: 'ClassNotFound' });
    expect(h.hv.entries.size).toBe(0);
  });
});
