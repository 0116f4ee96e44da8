import type { Resource } from '../api/index.js';
import { GoneError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { keyOf, keyString, type LabelSelector, type ObjectKey, type StateStore, type WatchEvent } from '../store/port.js';
import { realClock, sleep, type Clock } from './clock.js';
import { backoffDelay } from './work-queue.js';
import { createStringPool } from '../util/string-pool.js';

/**
 * A list-then-watch cache of one kind over the StateStore port (docs/architecture.md §5: watches end and must be
 * restarted by us). Lists, watches from the list's resourceVersion, re-lists on GoneError and diffs the
 * new list against the cache, restarts ended or failed watches with capped backoff, and periodically
 * re-delivers every cached object as an update (resync) so that level-based reconcilers catch drift.
 */
export interface InformerHandler<T extends Resource = Resource> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  store: StateStore;
  kind: string;
  namespace?: string;
  /** cache only the objects with these labels (per-host shards watch `zvm.dev/host=<host>`). */
  labelSelector?: LabelSelector;
  /** re-deliver every cached object as an update this often; off when absent or 0. */
  resyncMs?: number;
  log?: Logger;
  /** delay between watch restarts: doubles per unproductive attempt; default 200 ms to 30 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  clock?: Clock;
}

export interface Informer<T extends Resource = Resource> {
  readonly kind: string;
  /** Runnable name; informers run without the leader lease so that a standby's cache is warm. */
  readonly name: string;
  readonly needsLeaderElection: false;
  /** Registers handlers; objects already cached are delivered to them as adds. Returns an unregister. */
  addHandler(handler: InformerHandler<T>): () => void;
  /** Cached objects are shared: treat them as read-only. */
  get(key: ObjectKey): T | undefined;
  list(): T[];
  hasSynced(): boolean;
  /** true once the first list is in the cache; false if the signal aborts or the informer stops first. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /** Runs until the signal aborts or stop() is called. */
  start(signal?: AbortSignal): Promise<void>;
  stop(): void;
}

export function createInformer<T extends Resource = Resource>(options: InformerOptions): Informer<T> {
  const { store, kind, namespace, labelSelector } = options;
  const selection = { ...(namespace ? { namespace } : {}), ...(labelSelector ? { labelSelector } : {}) };
  const log = (options.log ?? silentLogger()).child({ component: 'informer', kind });
  const clock = options.clock ?? realClock;
  const initialMs = options.backoff?.initialMs ?? 200;
  const maxMs = options.backoff?.maxMs ?? 30_000;
  const cache = new Map<string, T>();
  // the cache holds thousands of objects for as long as the process runs: their repeated strings are shared
  const strings = createStringPool();
  const handlers = new Set<InformerHandler<T>>();
  const stopper = new AbortController();
  let synced = false;
  let syncWaiters: Array<(ok: boolean) => void> = [];
  let running: Promise<void> | undefined;

  function emit(deliver: (h: InformerHandler<T>) => void, to: Iterable<InformerHandler<T>> = handlers): void {
    for (const handler of to) {
      try {
        deliver(handler);
      } catch (err) {
        // One faulty handler must not stop the others or the watch; the next resync re-delivers.
        log.error({ err }, 'informer handler failed');
      }
    }
  }

  function settleWaiters(ok: boolean): void {
    const waiters = syncWaiters;
    syncWaiters = [];
    for (const resolve of waiters) resolve(ok);
  }

  /** Replaces the cache with a fresh list and emits the difference. */
  async function relist(): Promise<string> {
    const result = await store.list<T>(kind, selection);
    const fresh = new Map(result.items.map((obj) => [keyString(keyOf(obj)), strings.intern(obj)] as const));
    for (const [k, old] of cache) {
      if (!fresh.has(k)) {
        cache.delete(k);
        emit((h) => h.onDelete?.(old));
      }
    }
    for (const [k, obj] of fresh) {
      const old = cache.get(k);
      cache.set(k, obj);
      if (!old) emit((h) => h.onAdd?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) emit((h) => h.onUpdate?.(old, obj));
    }
    if (!synced) {
      synced = true;
      log.debug({ items: cache.size }, 'informer synced');
      settleWaiters(true);
    }
    return result.resourceVersion;
  }

  function apply(event: WatchEvent<T>): void {
    const obj = event.object;
    if (event.type === 'BOOKMARK') return;
    const k = keyString(keyOf(obj));
    const old = cache.get(k);
    if (event.type === 'DELETED') {
      cache.delete(k);
      if (old) emit((h) => h.onDelete?.(obj));
      return;
    }
    cache.set(k, strings.intern(obj));
    if (old) emit((h) => h.onUpdate?.(old, obj));
    else emit((h) => h.onAdd?.(obj));
  }

  /** Watches from rv until the stream ends; returns the last seen version and whether anything arrived. */
  async function watchFrom(rv: string, signal: AbortSignal): Promise<{ rv: string; productive: boolean }> {
    let productive = false;
    const opts = { resourceVersion: rv, signal, ...selection };
    for await (const event of store.watch<T>(kind, opts)) {
      if (signal.aborted) break;
      apply(event);
      rv = event.object.metadata.resourceVersion ?? rv;
      productive = true;
    }
    return { rv, productive };
  }

  async function loop(signal: AbortSignal): Promise<void> {
    let rv: string | undefined; // undefined: the next attempt lists first
    let failures = 0;
    for (let attempt = 0; !signal.aborted; attempt += 1) {
      try {
        if (rv === undefined) rv = await relist();
        const watched = await watchFrom(rv, signal);
        rv = watched.rv;
        if (watched.productive) failures = 0;
        if (!signal.aborted) log.debug({ attempt }, 'watch ended; restarting');
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError) {
          log.info({ rv }, 'watch version expired; re-listing');
          rv = undefined;
        } else {
          log.warn({ err, attempt }, 'list or watch failed; retrying');
        }
      }
      await sleep(backoffDelay(failures, initialMs, maxMs), signal, clock);
      failures += 1;
    }
  }

  function scheduleResync(signal: AbortSignal): void {
    const period = options.resyncMs ?? 0;
    if (period <= 0) return;
    const tick = (): void => {
      if (signal.aborted) return;
      if (synced) for (const obj of cache.values()) emit((h) => h.onUpdate?.(obj, obj));
      handle = clock.setTimeout(tick, period);
    };
    let handle = clock.setTimeout(tick, period);
    signal.addEventListener('abort', () => clock.clearTimeout(handle), { once: true });
  }

  return {
    kind,
    name: `informer/${kind}${namespace ? `/${namespace}` : ''}`,
    needsLeaderElection: false,
    addHandler(handler) {
      handlers.add(handler);
      for (const obj of cache.values()) emit((h) => h.onAdd?.(obj), [handler]);
      return () => void handlers.delete(handler);
    },
    get: (key) => cache.get(keyString(key)),
    list: () => [...cache.values()],
    hasSynced: () => synced,
    waitForSync(signal) {
      if (synced) return Promise.resolve(true);
      if (stopper.signal.aborted || signal?.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        const onAbort = (): void => resolve(false);
        signal?.addEventListener('abort', onAbort, { once: true });
        syncWaiters.push((ok) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        });
      });
    },
    start(signal) {
      if (running) return running;
      const combined = signal ? AbortSignal.any([signal, stopper.signal]) : stopper.signal;
      if (combined.aborted) settleWaiters(false);
      else combined.addEventListener('abort', () => settleWaiters(false), { once: true });
      scheduleResync(combined);
      log.debug({ namespace }, 'informer starting');
      running = loop(combined);
      return running;
    },
    stop() {
      stopper.abort();
      if (!running) settleWaiters(false);
    },
  };
}
