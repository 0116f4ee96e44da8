/**
 * The REST write-and-wait engine over the real embedded store: many waiting calls share one store
 * watch, a reported failure is undone, the operation timeout answers 202 "still running", and a watch
 * that has to start afresh makes every waiter read its object again (nothing missed, no polling).
 */
import { API_VERSION, SMAPI_REACHABLE, type Resource, type ZGuest, type ZHost } from '../../../src/api/index.js';
import { GoneError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { computeHttpStatus } from '../../../src/rest/envelope.js';
import type { FeilongError } from '../../../src/rest/feilong-error.js';
import { feilongErrors } from '../../../src/rest/feilong-error.js';
import { createStoreFeed, type StoreFeed } from '../../../src/rest/store-feed.js';
import { createWriteAndWait } from '../../../src/rest/write-and-wait.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import type { StateStore, WatchEvent, WatchOptions } from '../../../src/store/port.js';

const guest = (name: string): ZGuest => ({
  apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid: name.toUpperCase(), vcpus: 1, memory: '1G', powerState: 'Stopped' },
});

const synced = (ok: boolean, reason = ok ? 'Synced' : 'HypervisorError', message = '') =>
  ({ type: 'Synced', status: ok ? 'True' : 'False', reason, message, lastTransitionTime: new Date().toISOString() }) as const;

/** The store, with store.watch() calls counted and (when asked) the next watch failing with GoneError once open. */
function countingStore(): { store: StateStore; watches: () => number; failNextWatch: () => Promise<void> } {
  const inner = createEmbeddedStore();
  let watches = 0;
  let failing: (() => void) | undefined;
  const store: StateStore = {
    ...inner,
    watch<T extends Resource>(kind: string, opts?: WatchOptions): AsyncIterable<WatchEvent<T>> {
      watches += 1;
      const fail = failing;
      if (!fail) return inner.watch<T>(kind, opts);
      failing = undefined;
      return (async function* gone(): AsyncGenerator<WatchEvent<T>> {
        yield* [];
        fail();
        throw new GoneError('expired');
      })();
    },
  };
  /** resolves once the failing watch has ended */
  const failNextWatch = () => new Promise<void>((resolve) => (failing = resolve));
  return { store, watches: () => watches, failNextWatch };
}

async function until(what: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400 && !(await what()); i++) await new Promise((r) => setTimeout(r, 5));
  if (!(await what())) throw new Error('condition not reached');
}

describe('write-and-wait', () => {
  let s: ReturnType<typeof countingStore>;
  let feed: StoreFeed;
  const engine = (operationTimeoutMs = 5000) => createWriteAndWait({ store: s.store, feed, config: { operationTimeoutMs }, log: silentLogger() });

  beforeEach(() => {
    s = countingStore();
    feed = createStoreFeed(s.store, silentLogger());
  });
  afterEach(async () => {
    feed.close();
    await s.store.close();
  });

  it('lets twenty concurrent calls wait on one store watch, each answered by its own object', async () => {
    const writes = engine();
    const names = Array.from({ length: 20 }, (_, i) => `g${i}`);
    const calls = names.map((n) => writes.create(guest(n), { what: n, ready: (g) => g.status?.powerState === 'off', notFound: () => feilongErrors.guestNotFound(n) }));
    await until(async () => (await s.store.list('ZGuest')).items.length === 20);
    for (const n of [...names].reverse()) {
      const g = (await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: n }))!;
      await s.store.updateStatus<ZGuest>({ ...g, status: { observedGeneration: 1, powerState: 'off', conditions: [synced(true)] } });
    }
    const done = await Promise.all(calls);
    expect(done.map((g) => g.metadata.name)).toEqual(names);
    expect(s.watches()).toBe(1);
  });

  it('puts back the spec a failed patch wrote and answers the controller\'s error', async () => {
    const writes = engine();
    const before = await s.store.create(guest('p1'));
    const call = writes.patch(before, { spec: { vcpus: 4 } }, { what: 'p1', ready: () => true, notFound: () => feilongErrors.guestNotFound('P1') });
    await until(async () => (await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'p1' }))?.spec.vcpus === 4);
    const g = (await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'p1' }))!;
    const lastError = { overallRC: 300, modID: 10, rc: 300, rs: 5, errmsg: 'no' };
    await s.store.updateStatus<ZGuest>({ ...g, status: { observedGeneration: g.metadata.generation, lastError, conditions: [synced(false)] } });
    await expect(call).rejects.toMatchObject({ fields: lastError });
    expect((await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'p1' }))?.spec.vcpus).toBe(1);
  });

  it('removes a failed create and answers its reason through the table (UseridConflict → 409)', async () => {
    const writes = engine();
    const call = writes.create(guest('c1'), { what: 'c1', ready: () => true, notFound: () => feilongErrors.guestNotFound('C1'), undo: () => ({ spec: { deletionPolicy: 'Orphan' } }) });
    await until(async () => Boolean(await s.store.get('ZGuest', { namespace: 'default', name: 'c1' })));
    const g = (await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'c1' }))!;
    await s.store.updateStatus<ZGuest>({ ...g, status: { observedGeneration: 1, conditions: [synced(false, 'UseridConflict', 'taken')] } });
    const err = (await call.catch((e: unknown) => e)) as FeilongError;
    expect(computeHttpStatus(err.fields)).toBe(409);
    expect(await s.store.get('ZGuest', { namespace: 'default', name: 'c1' })).toBeUndefined();
  });

  it('answers an operation that outlives the operation timeout 202 "still running", and leaves the write in place', async () => {
    const writes = engine(50);
    const err = (await writes.create(guest('t1'), { what: "guest 'T1' to be provisioned", see: 'GET /guests/T1', ready: () => true, notFound: () => feilongErrors.guestNotFound('T1') })
      .catch((e: unknown) => e)) as FeilongError;
    expect(computeHttpStatus(err.fields)).toBe(202);
    expect(err.fields).toMatchObject({ overallRC: 202, modID: 120, rc: 202, rs: 1 });
    expect(err.fields.errmsg).toBe("Still running after 0 s: guest 'T1' to be provisioned. The request was accepted and goes on in the background; GET /guests/T1 shows how it ends.");
    expect(await s.store.get('ZGuest', { namespace: 'default', name: 't1' })).toBeDefined();
  });

  it('reads every waited object again when the watch has to start afresh, so a change made meanwhile is not missed', async () => {
    const writes = engine();
    const created = await s.store.create(guest('r1'));
    const watchEnded = s.failNextWatch();
    const call = writes.patch(created, { metadata: { annotations: { a: '1' } } }, { what: 'r1', ready: (g) => g.status?.powerState === 'off', notFound: () => feilongErrors.guestNotFound('R1') });
    await watchEnded;
    // no watch is open now: only the re-read after the restart can see this change
    const current = (await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'r1' }))!;
    await s.store.updateStatus<ZGuest>({ ...current, status: { observedGeneration: 1, powerState: 'off', conditions: [synced(true)] } });
    const done = await call;
    expect(done.status?.powerState).toBe('off');
    expect(s.watches()).toBe(2);
  });

  describe('on a host whose SMAPI is unreachable', () => {
    const outage = (status: 'True' | 'False') => ({ type: SMAPI_REACHABLE, status, reason: status === 'False' ? 'HostUnreachable' : 'SmapiAnswers', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });
    async function zhost(status: 'True' | 'False'): Promise<void> {
      const host = (await s.store.get<ZHost>('ZHost', { name: 'default' })) ?? (await s.store.create<ZHost>({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } }));
      await s.store.updateStatus<ZHost>({ ...host, status: { conditions: [outage(status)] } });
    }
    const ready = (g: ZGuest) => g.status?.powerState === 'on';
    /** the error a call ends with; a call that succeeds fails the test */
    const refusal = (p: Promise<unknown>): Promise<FeilongError> => p.then(() => {
      throw new Error('the call succeeded');
    }, (e: FeilongError) => e);
    const notFound = () => feilongErrors.guestNotFound('X');

    it('refuses a create, a patch and a delete at once with the reference\'s SMAPI-down result (503), writing nothing', async () => {
      const existing = await s.store.create(guest('d1'));
      await zhost('False');
      const writes = engine();
      const refusals = await Promise.all([
        refusal(writes.create(guest('c1'), { what: 'c1', ready, notFound })),
        refusal(writes.patch(existing, { spec: { powerState: 'Running' } }, { what: 'd1', ready, notFound })),
        refusal(writes.remove('ZGuest', { namespace: 'default', name: 'd1' }, { what: 'd1' })),
      ]);
      for (const err of refusals) {
        expect(err.fields).toMatchObject({ overallRC: 500, modID: 1, rc: -110, rs: 0 });
        expect(err.fields.errmsg).toContain('SMAPI of host default is unreachable');
        expect(computeHttpStatus(err.fields)).toBe(503);
      }
      expect(await s.store.get('ZGuest', { namespace: 'default', name: 'c1' })).toBeUndefined();
      const kept = await s.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'd1' });
      expect(kept?.spec.powerState).toBe('Stopped');
      expect(kept?.metadata.deletionTimestamp).toBeUndefined();
    });

    it('answers a write made before the outage was declared 202 accepted when it is, and keeps it for when the host answers', async () => {
      await zhost('True');
      const writes = engine();
      const call = refusal(writes.create(guest('w1'), { what: "guest 'W1' to be provisioned", ready, notFound }));
      await until(async () => (await s.store.get('ZGuest', { namespace: 'default', name: 'w1' })) !== undefined);
      await zhost('False');
      const err = await call;
      expect(computeHttpStatus(err.fields)).toBe(202);
      expect(err.fields).toMatchObject({ overallRC: 202, modID: 120, rc: 202, rs: 3 });
      expect(err.fields.errmsg).toMatch(/^Accepted: guest 'W1' to be provisioned\. The SMAPI of host default stopped answering/);
      expect(await s.store.get('ZGuest', { namespace: 'default', name: 'w1' })).toBeDefined();
    });
  });
});
