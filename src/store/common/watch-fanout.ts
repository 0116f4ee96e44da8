/**
 * Watch fan-out of the stores that keep their own change history (embedded and SQLite): one queue per
 * watch, so a slow consumer never blocks a writer. Each store decides what a watch queues from a
 * committed change (`select`) and how a queued item reaches the consumer (`deliver`); the watcher's
 * life (abort, overflow, close, the consumer stopping) is handled here once.
 */
import type { Resource } from '../../api/index.js';
import { GoneError, InvalidInputError } from '../../errors.js';
import { Fifo } from '../../util/fifo.js';
import type { WatchEvent, WatchOptions } from '../port.js';
import { definitionOf } from './kinds.js';
import type { WatchFilter } from './selector.js';

export interface WatchSpec<E, Q, T extends Resource> {
  /** the kind watched, for the overflow message */
  kind: string;
  /** the version the watch resumes after, and the highest one whose change is no longer kept (GoneError below it) */
  fromRv: number;
  compactedRv: number;
  /** what this watch queues from a published change; undefined: not for this watch */
  select(change: E): Q | undefined;
  /** the event a queued item becomes when the consumer takes it; undefined: skip it */
  deliver(item: Q): WatchEvent<T> | undefined;
  /** items queued ahead of every published change (history read at the moment the watch opens) */
  backlog?: Iterable<Q>;
  /** events yielded before the queue (history read while changes keep arriving in the queue) */
  replay?: AsyncIterable<WatchEvent<T>>;
  signal?: AbortSignal;
}

export interface WatchFanout<E> {
  /** Hands a committed change to every open watch; changes must come in increasing resourceVersion order. */
  publish(change: E): void;
  /** A watch's events: replay, then backlog and published changes as they come, until it ends; GoneError when history no longer reaches back to fromRv. */
  watch<Q, T extends Resource>(spec: WatchSpec<E, Q, T>): AsyncGenerator<WatchEvent<T>>;
  /** Ends every watch cleanly; later watches end at once. */
  close(): void;
  readonly closed: boolean;
}

interface Watcher<E, Q> {
  kind: string;
  select(change: E): Q | undefined;
  queue: Fifo<Q>;
  ended: boolean;
  error?: Error;
  wake?: () => void;
}

export function tooOld(fromRv: number, compactedRv: number): GoneError {
  return new GoneError(`resourceVersion ${fromRv} is too old: history starts after ${compactedRv}`);
}

/** `queueLimit`: how far a watch may fall behind before it ends with GoneError (it could not resume from there either). */
export function createWatchFanout<E>(queueLimit: number): WatchFanout<E> {
  const watchers = new Set<Watcher<E, unknown>>();
  let closed = false;

  function end(watcher: Watcher<E, unknown>, error?: Error): void {
    if (watcher.ended) return;
    watcher.ended = true;
    watcher.error = error;
    watchers.delete(watcher);
    watcher.wake?.();
  }

  function enqueue(watcher: Watcher<E, unknown>, item: unknown): void {
    watcher.queue.push(item);
    if (watcher.queue.length > queueLimit) {
      end(watcher, new GoneError(`watch on ${watcher.kind} fell more than ${queueLimit} changes behind`));
    }
    watcher.wake?.();
  }

  async function* watch<Q, T extends Resource>(spec: WatchSpec<E, Q, T>): AsyncGenerator<WatchEvent<T>> {
    const { signal } = spec;
    if (closed || signal?.aborted) return;
    if (spec.fromRv < spec.compactedRv) throw tooOld(spec.fromRv, spec.compactedRv);
    const watcher: Watcher<E, Q> = { kind: spec.kind, select: spec.select, queue: new Fifo<Q>(), ended: false };
    for (const item of spec.backlog ?? []) watcher.queue.push(item);
    watchers.add(watcher as Watcher<E, unknown>);
    const onAbort = (): void => end(watcher as Watcher<E, unknown>);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const event of spec.replay ?? []) {
        if (watcher.error) throw watcher.error;
        if (signal?.aborted || watcher.ended) return;
        yield event;
      }
      // Bounded by the watcher's life: abort, close, overflow or the consumer stopping end it.
      for (;;) {
        if (signal?.aborted) return;
        if (watcher.queue.length > 0) {
          const event = spec.deliver(watcher.queue.shift() as Q);
          if (event) yield event;
          continue;
        }
        if (watcher.error) throw watcher.error;
        if (watcher.ended) return;
        await new Promise<void>((resolve) => {
          watcher.wake = resolve;
        });
        watcher.wake = undefined;
      }
    } finally {
      watchers.delete(watcher as Watcher<E, unknown>);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    publish(change) {
      for (const watcher of watchers) {
        const item = watcher.select(change);
        if (item !== undefined) enqueue(watcher, item);
      }
    },
    watch,
    close() {
      closed = true;
      for (const watcher of [...watchers]) end(watcher);
    },
    get closed() {
      return closed;
    },
  };
}

/**
 * The port's watch() for these stores: the kind is checked and the start version read when the caller
 * first iterates; without a resourceVersion the watch starts at `startRv`, taken when watch() was called.
 */
export function watchFrom<T extends Resource>(
  kind: string,
  opts: WatchOptions,
  startRv: number,
  stream: (filter: WatchFilter, fromRv: number, signal?: AbortSignal) => AsyncIterable<WatchEvent<T>>,
): AsyncIterable<WatchEvent<T>> {
  return (async function* watchKind() {
    definitionOf(kind);
    let fromRv = startRv;
    if (opts.resourceVersion !== undefined && opts.resourceVersion !== '') {
      fromRv = Number(opts.resourceVersion);
      if (!Number.isSafeInteger(fromRv) || fromRv < 0) throw new InvalidInputError(`invalid resourceVersion ${opts.resourceVersion}`);
    }
    yield* stream({ kind, namespace: opts.namespace, labelSelector: opts.labelSelector }, fromRv, opts.signal);
  })();
}
