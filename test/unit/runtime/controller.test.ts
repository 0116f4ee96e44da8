import { pino } from 'pino';
import { Registry } from 'prom-client';
import { TimeoutError } from '../../../src/errors.js';
import { createController, type Controller } from '../../../src/runtime/controller.js';
import { createMetrics } from '../../../src/runtime/metrics.js';
import { currentReconcile } from '../../../src/runtime/reconcile-context.js';
import { done, requeueAfter, TerminalError, type Reconciler, type Result } from '../../../src/runtime/result.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { createFakeClock, deferred, flush, type FakeClock } from './fake-clock.js';
import { aResource } from './fake-store.js';
import { createStubInformer, type StubInformer } from './stub-informer.js';

type Behaviour = (key: ObjectKey, signal: AbortSignal, call: number) => Promise<Result>;

describe('controller', () => {
  let clock: FakeClock;
  let registry: Registry;
  let informer: StubInformer;
  let calls: Array<{ key: string; signal: AbortSignal; reconcileId?: string }>;
  let stop: AbortController;
  let logLines: Array<Record<string, unknown>>;

  function build(behaviour: Behaviour, extra: Partial<Parameters<typeof createController>[0]> = {}): Controller {
    const reconciler: Reconciler = {
      kind: 'ZGuest',
      reconcile: (key, signal) => {
        calls.push({ key: `${key.namespace}/${key.name}`, signal, reconcileId: currentReconcile()?.reconcileId });
        return behaviour(key, signal, calls.length);
      },
    };
    const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
    return createController({ name: 'zguest', reconciler, informer, metrics: createMetrics(registry), log, clock, ...extra });
  }

  async function metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
    const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    const wanted = name.startsWith('controller_runtime_') ? { controller: 'zguest', ...labels } : labels;
    return values.find((v) => Object.entries(wanted).every(([k, l]) => v.labels[k] === l))?.value;
  }

  beforeEach(() => {
    clock = createFakeClock();
    registry = new Registry();
    informer = createStubInformer('ZGuest');
    calls = [];
    stop = new AbortController();
    logLines = [];
  });

  it('reconciles the key of an added object once and counts a success', async () => {
    const controller = build(async () => done());
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    await flush();
    clock.advance(10_000);
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['default/g1']);
    expect(await metric('controller_runtime_reconcile_total', { result: 'success' })).toBe(1);
    expect(await metric('controller_runtime_reconcile_errors_total')).toBe(0);
    expect(await registry.getSingleMetricAsString('controller_runtime_reconcile_time_seconds')).toContain('controller_runtime_reconcile_time_seconds_count{controller="zguest"} 1');
    stop.abort();
    await running;
  });

  it('retries a failing reconcile with backoff until it succeeds', async () => {
    const controller = build(async (_k, _s, call) => {
      if (call <= 2) throw new TypeError(`transient ${call}`);
      return done();
    });
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    for (let i = 0; i < 10 && calls.length < 3; i += 1) {
      await flush();
      clock.advance(5 * 2 ** i);
    }
    await flush();
    expect(calls).toHaveLength(3);
    expect(await metric('controller_runtime_reconcile_total', { result: 'error' })).toBe(2);
    expect(await metric('controller_runtime_reconcile_total', { result: 'success' })).toBe(1);
    expect(await metric('controller_runtime_reconcile_errors_total')).toBe(2);
    expect(await metric('workqueue_retries_total', { name: 'zguest' })).toBe(2);
    const failure = logLines.find((l) => l.msg === 'reconcile failed; retrying with backoff');
    expect(failure).toMatchObject({ controller: 'zguest', key: 'default/g1', err: { message: 'transient 1' } });
    expect(typeof failure?.reconcileId).toBe('string');
    stop.abort();
    await running;
  });

  it('does not retry a terminal error, and counts it', async () => {
    const controller = build(async () => {
      throw new Error('wrapped', { cause: new TerminalError('userid taken') });
    });
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    await flush();
    clock.advance(1_000_000);
    await flush();
    expect(calls).toHaveLength(1);
    expect(await metric('controller_runtime_terminal_reconcile_errors_total')).toBe(1);
    expect(await metric('controller_runtime_reconcile_errors_total')).toBe(1);
    expect(logLines.some((l) => l.level === 50 && l.key === 'default/g1')).toBe(true);
    // A later change of the object reconciles it again.
    informer.emitUpdate(aResource('g1', 1), aResource('g1', 2));
    await flush();
    expect(calls).toHaveLength(2);
    stop.abort();
    await running;
  });

  it('calls the reconciler again after the requested delay, not before', async () => {
    const controller = build(async (_k, _s, call) => (call === 1 ? requeueAfter(30_000) : done()));
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    await flush();
    clock.advance(29_999);
    await flush();
    expect(calls).toHaveLength(1);
    clock.advance(1);
    await flush();
    expect(calls).toHaveLength(2);
    expect(await metric('controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
    expect(new Set(calls.map((c) => c.reconcileId)).size).toBe(2);
    stop.abort();
    await running;
  });

  it('enqueues the keys a watch maps a related object to', async () => {
    const hosts = createStubInformer('ZHost');
    const controller = build(async () => done(), {
      watches: [{ informer: hosts, map: () => [{ namespace: 'ns', name: 'a' }, { namespace: 'ns', name: 'b' }] }],
    });
    const running = controller.start(stop.signal);
    hosts.emitAdd({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h1' }, spec: {} });
    await flush();
    expect(calls.map((c) => c.key).sort()).toEqual(['ns/a', 'ns/b']);
    stop.abort();
    await running;
  });

  it('lets an in-flight reconcile finish on stop without aborting its signal', async () => {
    const gate = deferred<Result>();
    const controller = build(() => gate.promise);
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    informer.emitAdd(aResource('g2', 1));
    await flush();
    let stopped = false;
    void running.then(() => (stopped = true));
    stop.abort();
    await flush();
    expect(stopped).toBe(false);
    expect(calls[0].signal.aborted).toBe(false);
    gate.resolve(done());
    await running;
    expect(calls.map((c) => c.key)).toEqual(['default/g1']); // the queued key is dropped, not started
    expect(calls[0].signal.aborted).toBe(false);
  });

  it('aborts the signal of a reconcile still running when the grace period ends', async () => {
    const controller = build(
      (_k, signal) => new Promise<Result>((resolve) => signal.addEventListener('abort', () => resolve(done()), { once: true })),
      { shutdownGraceMs: 1000 },
    );
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    await flush();
    stop.abort();
    await flush();
    expect(calls[0].signal.aborted).toBe(false);
    clock.advance(1000);
    await running;
    expect(calls[0].signal.aborted).toBe(true);
    expect(calls[0].signal.reason).toBeInstanceOf(TimeoutError);
  });

  it('fails to start with TimeoutError when the caches do not sync in time', async () => {
    informer = createStubInformer('ZGuest', false);
    const controller = build(async () => done(), { cacheSyncTimeoutMs: 100 });
    const running = controller.start(stop.signal);
    await flush();
    clock.advance(100);
    await expect(running).rejects.toBeInstanceOf(TimeoutError);
  });

  it('waits for the caches before reconciling', async () => {
    informer = createStubInformer('ZGuest', false);
    const controller = build(async () => done());
    const running = controller.start(stop.signal);
    informer.emitAdd(aResource('g1', 1));
    await flush();
    expect(calls).toHaveLength(0);
    informer.markSynced();
    await flush();
    expect(calls).toHaveLength(1);
    stop.abort();
    await running;
  });
});
