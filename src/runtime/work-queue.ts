import { ConflictError } from '../errors.js';
import { realClock, type Clock } from './clock.js';
import { Fifo } from '../util/fifo.js';
import { MinHeap } from './min-heap.js';
import { noopQueueMetrics, type WorkQueueMetrics } from './metrics.js';

/**
 * A keyed work queue with client-go semantics (docs/kubernetes.md §1):
 * - a key added while queued is queued once;
 * - a key added while a worker processes it is marked dirty and queued again when that worker finishes,
 *   so one key is never processed by two workers at once;
 * - addRateLimited delays by a per-key exponential backoff (base doubling up to the cap) until forget;
 * - delayed keys sit in one min-heap behind a single timer.
 * Every operation is O(1) or O(log n): no scans over the queued keys.
 */
export interface WorkQueueOptions<K> {
  name: string;
  /** workers run(handler) starts; default 1 (controller-runtime's MaxConcurrentReconciles). */
  concurrency?: number;
  /** first backoff step; default 5 ms. */
  baseDelayMs?: number;
  /** backoff cap; default 1000 s. */
  maxDelayMs?: number;
  /** identity of a key; default String(key). */
  keyOf?: (key: K) => string;
  metrics?: WorkQueueMetrics;
  clock?: Clock;
  /** a handler that throws: reported here, and the key is retried with backoff. */
  onError?: (err: unknown, key: K) => void;
}

export type WorkHandler<K> = (key: K) => Promise<void>;

export interface WorkQueueStats {
  queued: number;
  processing: number;
  delayed: number;
}

export interface WorkQueue<K> {
  readonly name: string;
  add(key: K): void;
  addAfter(key: K, ms: number): void;
  addRateLimited(key: K): void;
  /** Resets the key's backoff (after a success). */
  forget(key: K): void;
  numRequeues(key: K): number;
  /** Starts the workers; resolves once the queue is shut down and no handler runs. */
  run(handler: WorkHandler<K>): Promise<void>;
  /**
   * Stops accepting keys and drops queued and delayed ones; with drain, resolves once in-flight
   * handlers have finished, else at once.
   */
  shutdown(options?: { drain?: boolean }): Promise<void>;
  isShuttingDown(): boolean;
  stats(): WorkQueueStats;
}

interface Delayed<K> {
  at: number;
  key: K;
}

export function createWorkQueue<K>(options: WorkQueueOptions<K>): WorkQueue<K> {
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const baseDelayMs = options.baseDelayMs ?? 5;
  const maxDelayMs = options.maxDelayMs ?? 1_000_000;
  const idOf = options.keyOf ?? ((key: K) => String(key));
  const metrics = options.metrics ?? noopQueueMetrics;
  const clock = options.clock ?? realClock;

  const fifo = new Fifo<string>();
  const dirty = new Map<string, K>(); // keys that need processing: in the fifo, or waiting on their worker
  const enqueuedAt = new Map<string, number>();
  const processing = new Set<string>();
  const failures = new Map<string, number>();
  const waiting = new Map<string, Delayed<K>>(); // the earliest pending delayed add per key
  const heap = new MinHeap<string>();
  let timer: { handle: unknown; at: number } | undefined;
  let handler: WorkHandler<K> | undefined;
  let active = 0;
  let shuttingDown = false;
  let idleWaiters: Array<() => void> = [];

  const onError = options.onError ?? (() => undefined);

  function add(key: K): void {
    if (shuttingDown) return;
    const id = idOf(key);
    if (dirty.has(id)) return;
    metrics.added();
    dirty.set(id, key);
    enqueuedAt.set(id, clock.now());
    if (processing.has(id)) return; // re-queued by done()
    fifo.push(id);
    metrics.depth(fifo.length);
    pump();
  }

  function addAfter(key: K, ms: number): void {
    if (shuttingDown) return;
    if (ms <= 0) return add(key);
    const id = idOf(key);
    const at = clock.now() + ms;
    const existing = waiting.get(id);
    if (existing && existing.at <= at) return; // an earlier wake-up already covers this one
    waiting.set(id, { at, key });
    heap.push({ at, value: id });
    armTimer();
  }

  function addRateLimited(key: K): void {
    const id = idOf(key);
    const n = failures.get(id) ?? 0;
    failures.set(id, n + 1);
    metrics.retried();
    addAfter(key, backoffDelay(n, baseDelayMs, maxDelayMs));
  }

  /** Drops heap entries superseded by an earlier addAfter of the same key. */
  function validTop(): { at: number; value: string } | undefined {
    for (let top = heap.peek(); top; top = heap.peek()) {
      if (waiting.get(top.value)?.at === top.at) return top;
      heap.pop();
    }
    return undefined;
  }

  function armTimer(): void {
    const top = validTop();
    if (timer && (!top || timer.at !== top.at)) {
      clock.clearTimeout(timer.handle);
      timer = undefined;
    }
    if (!top || timer) return;
    const at = top.at;
    timer = { at, handle: clock.setTimeout(fire, at - clock.now()) };
  }

  function fire(): void {
    timer = undefined;
    const now = clock.now();
    for (let top = validTop(); top && top.at <= now; top = validTop()) {
      heap.pop();
      const delayed = waiting.get(top.value);
      waiting.delete(top.value);
      if (delayed) add(delayed.key);
    }
    armTimer();
  }

  function pump(): void {
    while (handler && !shuttingDown && active < concurrency && fifo.length > 0) {
      const id = fifo.shift() as string;
      const key = dirty.get(id) as K;
      dirty.delete(id);
      processing.add(id);
      metrics.depth(fifo.length);
      metrics.queueDuration((clock.now() - (enqueuedAt.get(id) ?? clock.now())) / 1000);
      enqueuedAt.delete(id);
      active += 1;
      void process(handler, id, key);
    }
  }

  async function process(work: WorkHandler<K>, id: string, key: K): Promise<void> {
    const started = clock.now();
    try {
      await work(key);
    } catch (err) {
      onError(err, key);
      addRateLimited(key);
    } finally {
      metrics.workDuration((clock.now() - started) / 1000);
      active -= 1;
      done(id);
    }
  }

  function done(id: string): void {
    processing.delete(id);
    if (!shuttingDown && dirty.has(id)) {
      fifo.push(id);
      metrics.depth(fifo.length);
    }
    notifyIfStopped();
    pump();
  }

  /** Resolves run() and drain waiters once shut down with no handler left running. */
  function notifyIfStopped(): void {
    if (!shuttingDown || active > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function whenIdle(): Promise<void> {
    if (active === 0) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  return {
    name: options.name,
    add,
    addAfter,
    addRateLimited,
    forget: (key) => void failures.delete(idOf(key)),
    numRequeues: (key) => failures.get(idOf(key)) ?? 0,
    run(work) {
      if (handler) throw new ConflictError(`work queue ${options.name} already running`);
      handler = work;
      pump();
      return shuttingDown && active === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    shutdown(opts = {}) {
      shuttingDown = true;
      if (timer) clock.clearTimeout(timer.handle);
      timer = undefined;
      heap.clear();
      waiting.clear();
      fifo.clear();
      dirty.clear();
      enqueuedAt.clear();
      metrics.depth(0);
      notifyIfStopped();
      return opts.drain ? whenIdle() : Promise.resolve();
    },
    isShuttingDown: () => shuttingDown,
    stats: () => ({ queued: fifo.length, processing: processing.size, delayed: waiting.size }),
  };
}

/** base · 2^n, capped; n is the number of earlier failures. */
export function backoffDelay(n: number, baseMs: number, maxMs: number): number {
  if (n >= 52) return maxMs; // 2^n beyond double precision: certainly past any sane cap
  return Math.min(baseMs * 2 ** n, maxMs);
}
