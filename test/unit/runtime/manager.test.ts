import { TimeoutError, ZvmError } from '../../../src/errors.js';
import { createManager, type LeaderCallbacks, type LeaderElector } from '../../../src/runtime/manager.js';
import type { Runnable } from '../../../src/runtime/runnable.js';
import { createFakeClock, deferred, flush } from './fake-clock.js';

interface Probe extends Runnable {
  signal?: AbortSignal;
  starts: number;
}

/** A runnable that runs until its signal aborts, then stops (after `finishing` if given). */
function aRunnable(name: string, needsLeaderElection = false, finishing?: Promise<void>): Probe {
  const probe: Probe = {
    name,
    needsLeaderElection,
    starts: 0,
    async start(signal) {
      probe.starts += 1;
      probe.signal = signal;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await finishing;
    },
  };
  return probe;
}

function aFakeElector(): LeaderElector & { callbacks?: LeaderCallbacks; lease: AbortController } {
  const elector = {
    callbacks: undefined as LeaderCallbacks | undefined,
    lease: new AbortController(),
    async run(callbacks: LeaderCallbacks, signal: AbortSignal) {
      elector.callbacks = callbacks;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
  return elector;
}

describe('manager', () => {
  it('without an elector starts every runnable at once and stops them all gracefully', async () => {
    const a = aRunnable('a');
    const b = aRunnable('b', true);
    const manager = createManager({ runnables: [a] });
    manager.add(b);
    const running = manager.start();
    await flush();
    expect([a.starts, b.starts]).toEqual([1, 1]);
    await manager.stop(1000);
    await running;
    expect(a.signal?.aborted && b.signal?.aborted).toBe(true);
  });

  it('starts leader-only runnables when leadership is gained, the others at once', async () => {
    const informer = aRunnable('informer');
    const controller = aRunnable('controller', true);
    const elector = aFakeElector();
    const manager = createManager({ runnables: [informer, controller], elector });
    const running = manager.start();
    await flush();
    expect([informer.starts, controller.starts]).toEqual([1, 0]);
    expect(manager.isLeader()).toBe(false);
    elector.callbacks?.onStartedLeading(elector.lease.signal);
    await flush();
    expect(controller.starts).toBe(1);
    expect(manager.isLeader()).toBe(true);
    await manager.stop(1000);
    await running;
  });

  it('stops everything and fails when leadership is lost', async () => {
    const informer = aRunnable('informer');
    const controller = aRunnable('controller', true);
    const elector = aFakeElector();
    const manager = createManager({ runnables: [informer, controller], elector });
    const running = manager.start();
    await flush();
    elector.callbacks?.onStartedLeading(elector.lease.signal);
    await flush();
    elector.lease.abort();
    elector.callbacks?.onStoppedLeading();
    await expect(running).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(informer.signal?.aborted).toBe(true);
    expect(controller.signal?.aborted).toBe(true);
  });

  it('stops the others and rejects with the error when a runnable fails', async () => {
    const healthy = aRunnable('healthy');
    const broken: Runnable = { name: 'broken', start: async () => { throw new ZvmError('INTERNAL', 'cannot bind'); } };
    const manager = createManager({ runnables: [healthy, broken] });
    await expect(manager.start()).rejects.toThrow('cannot bind');
    expect(healthy.signal?.aborted).toBe(true);
  });

  it('waits for a slow runnable to finish stopping', async () => {
    const finishing = deferred();
    const slow = aRunnable('slow', false, finishing.promise);
    const manager = createManager({ runnables: [slow] });
    const running = manager.start();
    await flush();
    let stopped = false;
    const stopping = manager.stop(60_000).then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    finishing.resolve();
    await stopping;
    await running;
    expect(stopped).toBe(true);
  });

  it('reports the runnables still running when the grace period ends', async () => {
    const clock = createFakeClock();
    const stuck = aRunnable('stuck', false, new Promise<void>(() => undefined));
    const manager = createManager({ runnables: [stuck, aRunnable('quick')], clock });
    void manager.start();
    await flush();
    const stopping = manager.stop(5000);
    await flush();
    clock.advance(5000);
    await expect(stopping).rejects.toBeInstanceOf(TimeoutError);
    await expect(stopping).rejects.toThrow(/stuck/);
  });
});
