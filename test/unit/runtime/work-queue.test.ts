import { Registry } from 'prom-client';
import { createWorkQueue, backoffDelay } from '../../../src/runtime/work-queue.js';
import { createMetrics } from '../../../src/runtime/metrics.js';
import { createFakeClock, deferred, flush, type Deferred } from './fake-clock.js';

describe('work queue', () => {
  it('processes a key added several times while queued only once', async () => {
    const queue = createWorkQueue<string>({ name: 'q' });
    const seen: string[] = [];
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.add('a');
    const running = queue.run(async (key) => void seen.push(key));
    await flush();
    expect(seen).toEqual(['a', 'b']);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('re-queues a key added while it is processed, and never runs it twice at once', async () => {
    const queue = createWorkQueue<string>({ name: 'q', concurrency: 4 });
    const gate = deferred();
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    const running = queue.run(async () => {
      calls += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (calls === 1) await gate.promise;
      inFlight -= 1;
    });
    queue.add('a');
    await flush();
    queue.add('a');
    queue.add('a');
    await flush();
    expect(calls).toBe(1);
    gate.resolve();
    await flush();
    expect(calls).toBe(2);
    expect(maxInFlight).toBe(1);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('never runs more handlers at once than its concurrency', async () => {
    const queue = createWorkQueue<number>({ name: 'q', concurrency: 3 });
    const gates = new Map<number, Deferred>();
    let inFlight = 0;
    let maxInFlight = 0;
    const running = queue.run(async (key) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const gate = deferred();
      gates.set(key, gate);
      await gate.promise;
      inFlight -= 1;
    });
    for (let i = 0; i < 10; i += 1) queue.add(i);
    await flush();
    expect(inFlight).toBe(3);
    expect(queue.stats()).toEqual({ queued: 7, processing: 3, delayed: 0 });
    for (let round = 0; round < 10 && gates.size > 0; round += 1) {
      for (const [key, gate] of gates) {
        gates.delete(key);
        gate.resolve();
      }
      await flush();
    }
    expect(maxInFlight).toBe(3);
    expect(queue.stats().queued).toBe(0);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('backs a failing key off exponentially from the base delay up to the cap', async () => {
    const clock = createFakeClock();
    const queue = createWorkQueue<string>({ name: 'q', baseDelayMs: 5, maxDelayMs: 40, clock });
    const seenAt: number[] = [];
    const running = queue.run(async () => void seenAt.push(clock.now()));
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const before = seenAt.length;
      const expected = backoffDelay(attempt, 5, 40);
      queue.addRateLimited('a');
      clock.advance(expected - 1);
      await flush();
      expect(seenAt.length).toBe(before); // not ready one millisecond early
      clock.advance(1);
      await flush();
      expect(seenAt.length).toBe(before + 1);
    }
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, 5, 40))).toEqual([5, 10, 20, 40, 40, 40]);
    expect(queue.numRequeues('a')).toBe(6);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('defaults to a 5 ms base and a 1000 s cap', () => {
    expect(backoffDelay(0, 5, 1_000_000)).toBe(5);
    expect(backoffDelay(1, 5, 1_000_000)).toBe(10);
    expect(backoffDelay(30, 5, 1_000_000)).toBe(1_000_000);
    expect(backoffDelay(5000, 5, 1_000_000)).toBe(1_000_000);
  });

  it('keeps the earlier of two delayed adds of one key and fires delayed keys in time order', async () => {
    const clock = createFakeClock();
    const queue = createWorkQueue<string>({ name: 'q', clock });
    const seen: string[] = [];
    const running = queue.run(async (key) => void seen.push(key));
    queue.addAfter('late', 300);
    queue.addAfter('a', 200);
    queue.addAfter('a', 100);
    queue.addAfter('a', 250);
    expect(queue.stats().delayed).toBe(2);
    clock.advance(150);
    await flush();
    expect(seen).toEqual(['a']);
    clock.advance(1000);
    await flush();
    expect(seen).toEqual(['a', 'late']);
    expect(clock.pendingTimers()).toBe(0);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('on drained shutdown lets in-flight work finish, drops queued keys and ignores new ones', async () => {
    const clock = createFakeClock();
    const queue = createWorkQueue<string>({ name: 'q', clock });
    const gate = deferred();
    const seen: string[] = [];
    const running = queue.run(async (key) => {
      seen.push(key);
      if (key === 'a') await gate.promise;
    });
    queue.add('a');
    queue.add('b');
    queue.addAfter('c', 10);
    await flush();
    let drained = false;
    const stopping = queue.shutdown({ drain: true }).then(() => {
      drained = true;
    });
    queue.add('d');
    await flush();
    expect(drained).toBe(false);
    gate.resolve();
    await stopping;
    await running;
    clock.advance(100);
    await flush();
    expect(seen).toEqual(['a']);
    expect(queue.stats()).toEqual({ queued: 0, processing: 0, delayed: 0 });
  });

  it('retries a key whose handler throws and reports the error', async () => {
    const clock = createFakeClock();
    const errors: unknown[] = [];
    const queue = createWorkQueue<string>({ name: 'q', clock, onError: (err) => errors.push(err) });
    let calls = 0;
    const running = queue.run(async () => {
      calls += 1;
      if (calls === 1) throw new TypeError('boom');
    });
    queue.add('a');
    await flush();
    expect(errors).toHaveLength(1);
    expect(queue.numRequeues('a')).toBe(1);
    clock.advance(5);
    await flush();
    expect(calls).toBe(2);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('handles 10 000 keys, each processed once, and 10 000 delayed keys in order', async () => {
    const clock = createFakeClock();
    const queue = createWorkQueue<number>({ name: 'q', concurrency: 16, clock });
    const counts = new Map<number, number>();
    const order: number[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      queue.add(i);
      queue.add(i);
    }
    expect(queue.stats().queued).toBe(10_000);
    const running = queue.run(async (key) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      order.push(key);
    });
    await flush(20);
    expect(counts.size).toBe(10_000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    order.length = 0;
    for (let i = 0; i < 10_000; i += 1) queue.addAfter(20_000 + i, 10_000 - i);
    clock.advance(10_000);
    await flush(20);
    expect(order).toHaveLength(10_000);
    expect(order[0]).toBe(29_999);
    expect(order[9_999]).toBe(20_000);
    await queue.shutdown({ drain: true });
    await running;
  });

  it('reports adds, retries and depth to its metrics', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    const clock = createFakeClock();
    const queue = createWorkQueue<string>({ name: 'guests', clock, metrics: metrics.queue('guests') });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.addRateLimited('c');
    const value = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.name === 'guests')?.value;
    expect(await value('workqueue_adds_total')).toBe(2);
    expect(await value('workqueue_depth')).toBe(2);
    expect(await value('workqueue_retries_total')).toBe(1);
    await queue.shutdown();
    expect(await value('workqueue_depth')).toBe(0);
  });
});
