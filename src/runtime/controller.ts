import { randomUUID } from 'node:crypto';
import { ConflictError, TimeoutError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { keyString, type ObjectKey } from '../store/port.js';
import { realClock, type Clock } from './clock.js';
import { enqueueForObject, enqueueMapped, type EventPredicate } from './event-handlers.js';
import type { Informer } from './informer.js';
import { noopControllerMetrics, type ReconcileOutcome, type RuntimeMetrics } from './metrics.js';
import { runInReconcileContext } from './reconcile-context.js';
import { TerminalError, type KeyMapper, type Reconciler } from './result.js';
import type { Runnable } from './runnable.js';
import { createWorkQueue, type WorkQueue } from './work-queue.js';

/**
 * The reconcile loop: informer events become keys in a work queue, workers call the reconciler, and
 * this one place turns each outcome into queue work (docs/code-conventions.md §1) — reconcilers never touch the queue.
 */
export interface WatchSource {
  informer: Informer;
  map: KeyMapper;
  /** which of the related kind's events are mapped at all; default every one */
  predicate?: EventPredicate;
}

export interface ControllerOptions {
  name: string;
  reconciler: Reconciler;
  /** the primary kind: each event enqueues the object's own key. */
  informer: Informer;
  /** which events of the primary kind enqueue a reconcile; default every one */
  predicate?: EventPredicate;
  /** default 1 (controller-runtime's MaxConcurrentReconciles). */
  concurrency?: number;
  /** related kinds whose events enqueue mapped keys. */
  watches?: WatchSource[];
  metrics?: RuntimeMetrics;
  log?: Logger;
  /** after stop, in-flight reconciles get this long before their signal aborts; default 30 s. */
  shutdownGraceMs?: number;
  /** start() fails with TimeoutError if the informers have not synced by then; default 2 min. */
  cacheSyncTimeoutMs?: number;
  /** per-key backoff of failed reconciles; defaults 5 ms to 1000 s. */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  clock?: Clock;
}

export interface Controller extends Runnable {
  readonly name: string;
  readonly needsLeaderElection: true;
  /** Queues a key as an event would (for tests and for triggers outside the informers). */
  enqueue(key: ObjectKey): void;
}

/** A TerminalError anywhere in the cause chain makes the failure terminal. */
export function isTerminal(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 10 && current instanceof Error; depth += 1) {
    if (current instanceof TerminalError) return true;
    current = current.cause;
  }
  return false;
}

export function createController(options: ControllerOptions): Controller {
  const { name, reconciler, informer } = options;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const clock = options.clock ?? realClock;
  const log = (options.log ?? silentLogger()).child({ controller: name });
  const metrics = options.metrics?.controller(name) ?? noopControllerMetrics;
  const watches = options.watches ?? [];
  const queue: WorkQueue<ObjectKey> = createWorkQueue<ObjectKey>({
    name,
    concurrency,
    keyOf: keyString,
    clock,
    baseDelayMs: options.backoff?.baseDelayMs,
    maxDelayMs: options.backoff?.maxDelayMs,
    metrics: options.metrics?.queue(name),
    onError: (err, key) => log.error({ err, key: keyString(key) }, 'reconcile handler threw; retrying'),
  });
  metrics.maxConcurrent(concurrency);
  // Registered now, not at start: the informers may start (and sync) before this controller does.
  informer.addHandler(enqueueForObject(queue, options.predicate));
  for (const watch of watches) watch.informer.addHandler(enqueueMapped(queue, watch.map, watch.predicate));
  let started = false;
  // Aborted only on forced shutdown: a graceful stop lets reconciles run to completion.
  const forceController = new AbortController();

  async function reconcileOne(key: ObjectKey, signal: AbortSignal): Promise<void> {
    const reconcileId = randomUUID();
    const rlog = log.child({ key: keyString(key), reconcileId });
    const began = clock.now();
    let outcome: ReconcileOutcome = 'success';
    metrics.activeWorkers(1);
    try {
      const result = await runInReconcileContext({ controller: name, key, reconcileId, log: rlog }, () =>
        reconciler.reconcile(key, signal),
      );
      queue.forget(key);
      if (result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        outcome = 'requeue_after';
        queue.addAfter(key, result.requeueAfterMs);
      }
    } catch (err) {
      outcome = 'error';
      if (isTerminal(err)) {
        metrics.terminalError();
        queue.forget(key);
        rlog.error({ err }, 'reconcile failed terminally; not retrying until the object changes');
      } else {
        queue.addRateLimited(key);
        rlog.warn({ err, retries: queue.numRequeues(key) }, 'reconcile failed; retrying with backoff');
      }
    } finally {
      metrics.activeWorkers(-1);
      metrics.reconciled(outcome, (clock.now() - began) / 1000);
    }
  }

  async function waitForCaches(signal: AbortSignal): Promise<boolean> {
    const timeout = new AbortController();
    const handle = clock.setTimeout(() => timeout.abort(), options.cacheSyncTimeoutMs ?? 120_000);
    try {
      const both = AbortSignal.any([signal, timeout.signal]);
      const results = await Promise.all([informer, ...watches.map((w) => w.informer)].map((i) => i.waitForSync(both)));
      return results.every(Boolean);
    } finally {
      clock.clearTimeout(handle);
    }
  }

  async function drain(workers: Promise<void>): Promise<void> {
    log.info({ inFlight: queue.stats().processing }, 'stopping; letting in-flight reconciles finish');
    const draining = queue.shutdown({ drain: true });
    const graceMs = options.shutdownGraceMs ?? 30_000;
    const handle = clock.setTimeout(() => {
      log.warn({ graceMs }, 'grace period over; aborting in-flight reconciles');
      forceController.abort(new TimeoutError(`controller ${name}: shutdown grace period of ${graceMs} ms exceeded`));
    }, graceMs);
    await draining;
    await workers;
    clock.clearTimeout(handle);
    log.info('stopped');
  }

  return {
    name,
    needsLeaderElection: true,
    enqueue: (key) => queue.add(key),
    async start(signal) {
      if (started) throw new ConflictError(`controller ${name} already started`);
      started = true;
      log.info({ concurrency }, 'starting');
      if (!(await waitForCaches(signal))) {
        await queue.shutdown();
        if (signal.aborted) return;
        throw new TimeoutError(`controller ${name}: caches did not sync in time`);
      }
      const workers = queue.run((key) => reconcileOne(key, forceController.signal));
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await drain(workers);
    },
  };
}
