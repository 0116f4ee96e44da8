/**
 * Watch history of the embedded store: a bounded in-memory list of committed events, which watches that
 * resume from a resourceVersion replay; live fan-out is the shared one (../common/watch-fanout.ts).
 */
import type { Resource } from '../../api/index.js';
import type { ChangeType, WatchEvent } from '../port.js';
import { copyJson } from '../common/json.js';
import { matchesLabels, matchesNamespace, seenThrough, type WatchFilter } from '../common/selector.js';
import { createWatchFanout } from '../common/watch-fanout.js';

export interface StoredEvent {
  rv: number;
  kind: string;
  type: ChangeType;
  object: Resource;
  /** the object before a MODIFIED event, to tell when it enters or leaves a label selector. */
  previous?: Resource;
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

/** How an event looks through a filter. */
function translate(event: StoredEvent, filter: WatchFilter): Delivery | undefined {
  if (event.kind !== filter.kind || !matchesNamespace(event.object, filter.namespace)) return undefined;
  const before = event.previous ? matchesLabels(event.previous, filter.labelSelector) : true;
  const type = seenThrough(event.type, matchesLabels(event.object, filter.labelSelector), before);
  return type ? { type, object: event.object } : undefined;
}

export function createWatchHub(deps: WatchHubDeps): WatchHub {
  const history: StoredEvent[] = [];
  let historyHead = 0;
  /** the highest rv whose event is no longer in history. */
  let compactedRv = deps.startRv;
  const fanout = createWatchFanout<StoredEvent>(deps.historyLimit);

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

  function* backlog(filter: WatchFilter, fromRv: number): Iterable<Delivery> {
    for (let i = firstIndexAfter(fromRv); i < history.length; i += 1) {
      const delivery = translate(history[i], filter);
      if (delivery) yield delivery;
    }
  }

  return {
    publish(event) {
      remember(event);
      fanout.publish(event);
    },
    stream<T extends Resource>(filter: WatchFilter, fromRv: number, signal?: AbortSignal) {
      return fanout.watch<Delivery, T>({
        kind: filter.kind,
        fromRv,
        compactedRv,
        select: (event) => translate(event, filter),
        deliver: (item) => ({ type: item.type, object: copyJson(item.object) as T }),
        backlog: backlog(filter, fromRv),
        signal,
      });
    },
    close: fanout.close,
  };
}
