import type { CoreV1Event } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { API_VERSION, type ZHost } from '../../../src/api/index.js';
import { NotFoundError, ZvmError } from '../../../src/errors.js';
import { createKubeEventRecorder, DEFAULT_EVENT_WRITERS, type EventSink } from '../../../src/runtime/kube-event-recorder.js';
import { aGuest } from '../../builders/zguest.js';
import { deferred, type Deferred } from './fake-clock.js';

interface Call {
  op: 'create' | 'patch';
  namespace: string;
  name: string;
  event?: CoreV1Event;
  patch?: { count: number; lastTimestamp: string };
}

/**
 * Records writes; `gate` holds every write until the test opens it; `fail` makes the next writes throw;
 * `inFlight` names the writes under way (by the Event's message) and `maxInFlight` the most at once.
 */
function aSink() {
  const calls: Call[] = [];
  const state: { gate?: Deferred; fail: unknown[]; gone: Set<string>; inFlight: string[]; maxInFlight: number } = { fail: [], gone: new Set(), inFlight: [], maxInFlight: 0 };
  const messageOf = new Map<string, string>();
  async function held<T>(message: string, write: () => T): Promise<T> {
    state.inFlight.push(message);
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight.length);
    try {
      await state.gate?.promise;
      return write();
    } finally {
      state.inFlight.splice(state.inFlight.indexOf(message), 1);
    }
  }
  const sink: EventSink = {
    create: (namespace, event) => held(event.message ?? '', () => {
      if (state.fail.length > 0) throw state.fail.shift();
      messageOf.set(event.metadata?.name ?? '', event.message ?? '');
      calls.push({ op: 'create', namespace, name: event.metadata?.name ?? '', event });
    }),
    patch: (namespace, name, patch) => held(messageOf.get(name) ?? '', () => {
      if (state.gone.has(name)) throw new NotFoundError(`Event ${name} not found`);
      calls.push({ op: 'patch', namespace, name, patch });
    }),
  };
  return { sink, calls, state };
}

const clockAt = (iso: string) => {
  const at = { now: new Date(iso) };
  return { at, now: () => at.now };
};

describe('Kubernetes event recorder', () => {
  it('writes a core/v1 Event naming the object by uid, with reason, message, type, count and source', async () => {
    const { sink, calls } = aSink();
    const clock = clockAt('2026-03-04T05:06:07.890Z');
    const recorder = createKubeEventRecorder({ sink, instance: 'pod-a', now: clock.now });
    recorder.event(aGuest({}, { name: 'web', namespace: 'team' }), 'Normal', 'Created', 'guest LINUX01 defined');
    await recorder.flush();
    expect(calls).toHaveLength(1);
    expect(calls[0].namespace).toBe('team');
    expect(calls[0].event).toMatchObject({
      metadata: { namespace: 'team' },
      involvedObject: { apiVersion: API_VERSION, kind: 'ZGuest', name: 'web', namespace: 'team', uid: 'uid-1' },
      type: 'Normal',
      reason: 'Created',
      message: 'guest LINUX01 defined',
      count: 1,
      firstTimestamp: '2026-03-04T05:06:07Z',
      lastTimestamp: '2026-03-04T05:06:07Z',
      source: { component: 'zvm-operator', host: 'pod-a' },
    });
    expect(calls[0].name).toMatch(/^web\./);
  });

  it('turns a repeat of a written event into a count bump on the same Event', async () => {
    const { sink, calls } = aSink();
    const clock = clockAt('2026-03-04T05:06:07Z');
    const recorder = createKubeEventRecorder({ sink, now: clock.now });
    const guest = aGuest();
    recorder.event(guest, 'Warning', 'HypervisorError', 'rc 400');
    await recorder.flush();
    clock.at.now = new Date('2026-03-04T05:07:00Z');
    recorder.event(guest, 'Warning', 'HypervisorError', 'rc 400');
    await recorder.flush();
    expect(calls.map((c) => c.op)).toEqual(['create', 'patch']);
    expect(calls[1]).toMatchObject({ name: calls[0].name, namespace: 'default', patch: { count: 2, lastTimestamp: '2026-03-04T05:07:00Z' } });
  });

  it('keeps different messages as different Events', async () => {
    const { sink, calls } = aSink();
    const recorder = createKubeEventRecorder({ sink });
    recorder.event(aGuest(), 'Normal', 'PowerChanged', 'on');
    recorder.event(aGuest(), 'Normal', 'PowerChanged', 'off');
    await recorder.flush();
    expect(calls.map((c) => [c.op, c.event?.message])).toEqual([['create', 'on'], ['create', 'off']]);
  });

  it('merges repeats that arrive while the event is still queued into one write', async () => {
    const { sink, calls, state } = aSink();
    state.gate = deferred();
    const recorder = createKubeEventRecorder({ sink, writers: 1 });
    recorder.event(aGuest({}, { name: 'first' }), 'Normal', 'Blocker', 'holds the writer');
    for (let i = 0; i < 5; i += 1) recorder.event(aGuest(), 'Warning', 'Retrying', 'same');
    state.gate.resolve();
    await recorder.flush();
    expect(calls.map((c) => [c.event?.reason, c.event?.count])).toEqual([['Blocker', 1], ['Retrying', 5]]);
  });

  it('never blocks the caller and drops new events once the queue is full, counting them', async () => {
    const { sink, calls, state } = aSink();
    state.gate = deferred();
    const registry = new Registry();
    const recorder = createKubeEventRecorder({ sink, queueLimit: 3, writers: 2, registry });
    for (let i = 0; i < 10; i += 1) recorder.event(aGuest(), 'Normal', 'Step', `step ${i}`);
    expect(calls).toHaveLength(0);
    // steps 0-1 are being written, steps 2-4 fill the queue, 5-9 are dropped
    expect(state.inFlight).toEqual(['step 0', 'step 1']);
    expect(recorder.dropped()).toBe(5);
    expect(await registry.getSingleMetricAsString('zvm_events_dropped_total')).toMatch(/^zvm_events_dropped_total 5$/m);
    state.gate.resolve();
    await recorder.flush();
    expect(calls.map((c) => c.event?.message)).toEqual(['step 0', 'step 1', 'step 2', 'step 3', 'step 4']);
  });

  it('writes distinct events concurrently, never more at once than its writers', async () => {
    const { sink, calls, state } = aSink();
    state.gate = deferred();
    const recorder = createKubeEventRecorder({ sink });
    for (let i = 0; i < 20; i += 1) recorder.event(aGuest({}, { name: `g${i}` }), 'Normal', 'Created', `guest ${i}`);
    expect(state.inFlight).toHaveLength(DEFAULT_EVENT_WRITERS);
    state.gate.resolve();
    await recorder.flush();
    expect(calls).toHaveLength(20);
    expect(state.maxInFlight).toBe(DEFAULT_EVENT_WRITERS);
    expect(recorder.dropped()).toBe(0);
  });

  it('holds a repeat while the same Event is being written, and bumps its count after', async () => {
    const { sink, calls, state } = aSink();
    state.gate = deferred();
    const recorder = createKubeEventRecorder({ sink });
    recorder.event(aGuest(), 'Warning', 'Retrying', 'same');
    recorder.event(aGuest(), 'Warning', 'Retrying', 'same'); // queued: its key is in flight
    recorder.event(aGuest(), 'Warning', 'Retrying', 'same'); // merged into the queued one
    recorder.event(aGuest(), 'Normal', 'Other', 'other'); // a free writer passes over the held repeat
    expect(state.inFlight).toEqual(['same', 'other']);
    state.gate.resolve();
    await recorder.flush();
    expect(state.maxInFlight).toBe(2);
    expect(calls.map((c) => [c.op, c.event?.message ?? c.patch?.count])).toEqual([['create', 'same'], ['create', 'other'], ['patch', 3]]);
    expect(calls[2].name).toBe(calls[0].name);
  });

  it('logs a failed write and goes on with the next events', async () => {
    const { sink, calls, state } = aSink();
    state.fail.push(new ZvmError('UNAVAILABLE', 'apiserver down'));
    const recorder = createKubeEventRecorder({ sink });
    recorder.event(aGuest(), 'Normal', 'Lost', 'first');
    recorder.event(aGuest(), 'Normal', 'Kept', 'second');
    await recorder.flush();
    expect(calls.map((c) => c.event?.reason)).toEqual(['Kept']);
  });

  it('creates a new Event when the one to bump has expired', async () => {
    const { sink, calls, state } = aSink();
    const recorder = createKubeEventRecorder({ sink });
    recorder.event(aGuest(), 'Normal', 'Started', 'on');
    await recorder.flush();
    state.gone.add(calls[0].name);
    recorder.event(aGuest(), 'Normal', 'Started', 'on');
    await recorder.flush();
    expect(calls.map((c) => [c.op, c.event?.count])).toEqual([['create', 1], ['create', 1]]);
  });

  it('puts events of cluster-scoped objects in the default namespace', async () => {
    const { sink, calls } = aSink();
    const recorder = createKubeEventRecorder({ sink });
    const host: ZHost = { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'lpar1', uid: 'h-1' }, spec: { simulated: true } };
    recorder.event(host, 'Warning', 'SmapiDown', 'no answer');
    await recorder.flush();
    expect(calls[0]).toMatchObject({ namespace: 'default', event: { involvedObject: { kind: 'ZHost', name: 'lpar1', uid: 'h-1' } } });
  });

  it('ignores events after close', async () => {
    const { sink, calls } = aSink();
    const recorder = createKubeEventRecorder({ sink });
    await recorder.close();
    recorder.event(aGuest(), 'Normal', 'Late', 'after close');
    await recorder.flush();
    expect(calls).toHaveLength(0);
  });
});
