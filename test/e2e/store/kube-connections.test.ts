/**
 * One connection pool to the apiserver (src/store/kube/connection-pool.ts): over a burst of requests
 * from every kind of client a process builds (store, leases, events), against a real kube-apiserver,
 * the process does a handful of TLS handshakes, not one per request. The Event recorder
 * (src/runtime/kube-event-recorder.ts) on it: a burst of distinct events goes out through a few
 * concurrent writers, none dropped, on a handful of connections; repeats of one event still end as one
 * Event whose count is the number of occurrences, although writes run concurrently.
 */
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { loadKubeconfig } from '../../../src/cmd/kube-common.js';
import { ZvmError } from '../../../src/errors.js';
import { createKubeEventRecorder, createKubeEventSink, DEFAULT_EVENT_WRITERS, type EventSink } from '../../../src/runtime/kube-event-recorder.js';
import { createKubeLeaseApi } from '../../../src/runtime/kube-lease.js';
import { kubeTlsHandshakes, MAX_REQUEST_SOCKETS } from '../../../src/store/kube/connection-pool.js';
import { createKubeStore } from '../../../src/store/kube/index.js';
import { aGuest } from '../../builders/zguest.js';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';

let env: KubeTestEnv | undefined;

beforeAll(async () => {
  env = await startKubeTestEnv();
}, 240_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

const BURST = 50;
const ROUNDS = 3;

test('a burst of store, lease and event requests shares a few TLS connections', async () => {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  // two loads of the same file, as controller and migrate each load theirs: still one pool
  const leases = createKubeLeaseApi({ kubeconfig: loadKubeconfig(env.adminKubeconfig), namespace: 'default', name: 'no-such-lease' });
  const events = createKubeEventSink(loadKubeconfig(env.adminKubeconfig));
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.adminKubeconfig) });
  const before = kubeTlsHandshakes();
  let answered = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const signal = AbortSignal.timeout(60_000);
        const which = i % 3;
        if (which === 0) expect(await leases.get(signal)).toBeUndefined();
        else if (which === 1) {
          const name = `burst-${round}-${i}`;
          await events.create('default', { metadata: { name, namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Burst', message: 'x', type: 'Normal' }, signal);
        } else await expect(store.list('ZGuest', { namespace: 'default' })).rejects.toBeInstanceOf(ZvmError); // no CRDs here: the apiserver answers 404
        answered += 1;
      }),
    );
  }
  await store.close();
  const handshakes = kubeTlsHandshakes() - before;
  expect(answered).toBe(BURST * ROUNDS);
  expect(handshakes).toBeGreaterThanOrEqual(1);
  expect(handshakes).toBeLessThanOrEqual(MAX_REQUEST_SOCKETS);
}, 120_000);

test('the Event sink writes an Event, bumps its count with a merge patch, and reports a gone one as NOT_FOUND', async () => {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  const kubeconfig = loadKubeconfig(env.adminKubeconfig);
  const events = createKubeEventSink(kubeconfig);
  const signal = AbortSignal.timeout(30_000);
  const at = '2026-01-01T00:00:00Z';
  await events.create('default', {
    metadata: { name: 'counted', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
    reason: 'Counted', message: 'x', type: 'Normal', count: 1, firstTimestamp: at as unknown as Date, lastTimestamp: at as unknown as Date,
  }, signal);
  await events.patch('default', 'counted', { count: 3, lastTimestamp: '2026-01-01T00:01:00Z' }, signal);
  const read = await kubeconfig.makeApiClient(CoreV1Api).readNamespacedEvent({ namespace: 'default', name: 'counted' });
  expect(read.count).toBe(3);
  expect(read.reason).toBe('Counted');
  await expect(events.patch('default', 'no-such-event', { count: 2, lastTimestamp: at }, signal)).rejects.toMatchObject({ code: 'NOT_FOUND' });
}, 60_000);

function started(): KubeTestEnv {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  return env;
}

/** The real sink, counting the writes under way at once. */
function measured(sink: EventSink) {
  const seen = { inFlight: 0, max: 0 };
  const held = async (write: () => Promise<void>): Promise<void> => {
    seen.max = Math.max(seen.max, (seen.inFlight += 1));
    try {
      await write();
    } finally {
      seen.inFlight -= 1;
    }
  };
  const wrapped: EventSink = {
    create: (namespace, event, signal) => held(() => sink.create(namespace, event, signal)),
    patch: (namespace, name, patch, signal) => held(() => sink.patch(namespace, name, patch, signal)),
  };
  return { sink: wrapped, seen };
}

async function eventsIn(namespace: string): Promise<CoreV1Event[]> {
  const api = loadKubeconfig(started().adminKubeconfig).makeApiClient(CoreV1Api);
  return (await api.listNamespacedEvent({ namespace })).items;
}

async function aNamespace(name: string): Promise<string> {
  const api = loadKubeconfig(started().adminKubeconfig).makeApiClient(CoreV1Api);
  await api.createNamespace({ body: { metadata: { name } } });
  return name;
}

const EVENT_BURST = 2_000;

test('a burst of distinct events is written whole, by a few writers on a few connections', async () => {
  const namespace = await aNamespace('events-burst');
  const { sink, seen } = measured(createKubeEventSink(loadKubeconfig(started().adminKubeconfig)));
  // room for the whole burst: what is measured is that every event reaches the apiserver, and how
  const recorder = createKubeEventRecorder({ sink, queueLimit: EVENT_BURST, requestTimeoutMs: 60_000 });
  const before = kubeTlsHandshakes();
  for (let i = 0; i < EVENT_BURST; i += 1) recorder.event(aGuest({}, { name: `g${i}`, namespace, uid: `u${i}` }), 'Normal', 'Created', `guest ${i} defined`);
  await recorder.close(180_000);
  const handshakes = kubeTlsHandshakes() - before;

  expect(recorder.dropped()).toBe(0);
  expect(seen.max).toBe(DEFAULT_EVENT_WRITERS);
  // every writer holds at most one socket of the shared pool
  expect(handshakes).toBeLessThanOrEqual(DEFAULT_EVENT_WRITERS);
  const events = await eventsIn(namespace);
  expect(events).toHaveLength(EVENT_BURST);
  expect(new Set(events.map((e) => e.involvedObject.name)).size).toBe(EVENT_BURST);
  expect(events.every((e) => e.count === 1 && e.reason === 'Created')).toBe(true);
}, 240_000);

/** fewer objects than writers: a free writer is at hand when a repeat of an event in flight arrives */
const OBJECTS = DEFAULT_EVENT_WRITERS - 1;
const REPEATS = 6;

test('repeats of one event end as one Event counting every occurrence, with writes running concurrently', async () => {
  const namespace = await aNamespace('events-repeats');
  const { sink, seen } = measured(createKubeEventSink(loadKubeconfig(started().adminKubeconfig)));
  const recorder = createKubeEventRecorder({ sink, requestTimeoutMs: 60_000 });
  const guests = Array.from({ length: OBJECTS }, (_, i) => aGuest({}, { name: `r${i}`, namespace, uid: `r${i}` }));
  for (let round = 0; round < REPEATS; round += 1) {
    // rounds go out without waiting: a repeat finds its event queued (merged), in flight (held) or written (patched)
    for (const guest of guests) recorder.event(guest, 'Warning', 'HypervisorError', 'rc 400');
    if (round === 1) await recorder.flush(); // some repeats are certainly count bumps of written Events
  }
  await recorder.close(120_000);

  expect(recorder.dropped()).toBe(0);
  expect(seen.max).toBeGreaterThan(1);
  const events = await eventsIn(namespace);
  expect(events.map((e) => [e.involvedObject.name, e.count]).sort()).toEqual(guests.map((g) => [g.metadata.name, REPEATS]).sort());
}, 240_000);
