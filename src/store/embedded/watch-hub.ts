/**
 * Watch fan-out for the embedded store: a bounded history of committed events (for watches that
 * resume from a resourceVersion) and one queue per watcher, so a slow consumer never blocks a writer.
 */
import type { Resource } from '../../api/index.js';
import { GoneError } from '../../errors.js';
import { Fifo } from '../../runtime/fifo.js';
import type { ChangeType, LabelSelector, WatchEvent } from '../port.js';
import { copyJson } from './json.js';
import { matchesLabels, matchesNamespace } from './selector.js';

export interface StoredEvent {
  rv: number;
  kind: string;
  type: ChangeType;
  object: Resource;
  /** the object before a MODIFIED event, to tell when it enters or leaves a label selector. */
  previous?: Resource;
}

export interface WatchFilter {
  kind: string;
  namespace?: string;
  labelSelector?: LabelSelector;
}

export interface WatchHub {
  /** Events must arrive in increasing rv order; objects must never be mutated afterwards. */
  publish(event: StoredEvent): void;
  /** Every matching event after `fromRv`; GoneError from the first next() when history no longer reaches back. */
  stream<T extends Resource>(filter: WatchFilter, fromRv: number, signal?: AbortSignal): AsyncIterable<WatchEvent<T>>;
  /** Ends every watch cleanly; later streams end at once. */
  close(): void;
}

export interface WatchHubDeps {
  historyLimit: number;
  /** the resourceVersion the store starts at: nothing before it can be replayed. */
  startRv: number;
}

interface Delivery {
  type: StoredEvent['type'];
  object: Resource;
}

interface Watcher {
  filter: WatchFilter;
  queue: Fifo<Delivery>;
  ended: boolean;
  error?: Error;
  wake?: () => void;
}

/** How an event looks through a filter; a label change moves an object into or out of the selection. */
function translate(event: StoredEvent, filter: WatchFilter): Delivery | undefined {
  if (event.kind !== filter.kind || !matchesNamespace(event.object, filter.namespace)) return undefined;
  const now = matchesLabels(event.object, filter.labelSelector);
  if (event.type !== 'MODIFIED') return now ? { type: event.type, object: event.object } : undefined;
  const before = event.previous ? matchesLabels(event.previous, filter.labelSelector) : true;
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: event.object };
  return before ? { type: 'DELETED', object: event.object } : undefined;
}

export function createWatchHub(deps: WatchHubDeps): WatchHub {
  const history: StoredEvent[] = [];
  let historyHead = 0;
  /** the highest rv whose event is no longer in history. */
  let compactedRv = deps.startRv;
  const watchers = new Set<Watcher>();
  let closed = false;

  function remember(event: StoredEvent): void {
    history.push(event);
    while (history.length - historyHead > deps.historyLimit) {
      compactedRv = history[historyHead].rv;
      historyHead += 1;
    }
    // Reclaim the dropped prefix now and then instead of shifting on every event.
    if (historyHead > 1024 && historyHead * 2 > history.length) {
      history.splice(0, historyHead);
      historyHead = 0;
    }
  }

  function firstIndexAfter(rv: number): number {
    let lo = historyHead;
    let hi = history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (history[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function end(watcher: Watcher, error?: Error): void {
    if (watcher.ended) return;
    watcher.ended = true;
    watcher.error = error;
    watchers.delete(watcher);
    watcher.wake?.();
  }

  function enqueue(watcher: Watcher, delivery: Delivery): void {
    watcher.queue.push(delivery);
    // A consumer this far behind could not resume from its position either: end it as expired.
    if (watcher.queue.length > deps.historyLimit) {
      end(watcher, new GoneError(`watch on ${watcher.filter.kind} fell more than ${deps.historyLimit} events behind`));
    }
    watcher.wake?.();
  }

  async function* stream<T extends Resource>(filter: WatchFilter, fromRv: number, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
    if (closed || signal?.aborted) return;
    if (fromRv < compactedRv) {
      throw new GoneError(`resourceVersion ${fromRv} is too old: history starts after ${compactedRv}`);
    }
    const watcher: Watcher = { filter, queue: new Fifo<Delivery>(), ended: false };
    for (let i = firstIndexAfter(fromRv); i < history.length; i += 1) {
      const delivery = translate(history[i], filter);
      if (delivery) watcher.queue.push(delivery);
    }
    watchers.add(watcher);
    const onAbort = (): void => end(watcher);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Bounded by the watcher's life: abort, store close, overflow or the consumer stopping end it.
      for (;;) {
        if (signal?.aborted) return;
        const item = watcher.queue.shift();
        if (item) {
          yield { type: item.type, object: copyJson(item.object) as T };
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
      watchers.delete(watcher);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    publish(event) {
      remember(event);
      for (const watcher of watchers) {
        const delivery = translate(event, watcher.filter);
        if (delivery) enqueue(watcher, delivery);
      }
    },
    stream,
    close() {
      closed = true;
      for (const watcher of [...watchers]) end(watcher);
    },
  };
}
