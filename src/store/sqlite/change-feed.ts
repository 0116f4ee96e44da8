/**
 * Watches of the SQLite store. History lives in the `changes` table, not in memory: a watch from a
 * resourceVersion first replays committed rows after it (in chunks, on the reader connection), then
 * takes live changes as batches commit. Each watcher queues the committed JSON text and parses its own
 * copy on delivery, so the store holds no second copy of the objects it has announced.
 */
import type { Resource } from '../../api/index.js';
import { GoneError } from '../../errors.js';
import { Fifo } from '../../runtime/fifo.js';
import type { ChangeType, LabelSelector, WatchEvent } from '../port.js';
import { matchesLabels } from '../embedded/selector.js';
import type { Db } from './database.js';

/** One committed change, as stored in the `changes` table. */
export interface ChangeRecord {
  rv: number;
  kind: string;
  /** '' for cluster-scoped kinds */
  namespace: string;
  type: ChangeType;
  json: string;
  /** labels before a MODIFIED change (JSON text); absent otherwise */
  previousLabels?: string;
}

export interface FeedFilter {
  kind: string;
  namespace?: string;
  labelSelector?: LabelSelector;
}

export interface ChangeFeed {
  /** Announces committed changes, in increasing rv order. */
  publish(records: ChangeRecord[]): void;
  /** Every matching change after `fromRv`; GoneError when the table no longer reaches back that far. */
  stream<T extends Resource>(filter: FeedFilter, fromRv: number, signal?: AbortSignal): AsyncIterable<WatchEvent<T>>;
  close(): void;
}

export interface ChangeFeedDeps {
  reader: Db;
  /** the highest committed rv: what replay may read up to. */
  committedRv(): number;
  /** the highest rv whose change row is gone. */
  compactedRv(): number;
  /** how far a live watcher may fall behind before it is ended with GoneError. */
  queueLimit: number;
}

const REPLAY_CHUNK = 256;

interface Watcher {
  filter: FeedFilter;
  /** only live changes after this rv (replay covers the rest) */
  afterRv: number;
  queue: Fifo<ChangeRecord>;
  ended: boolean;
  error?: Error;
  wake?: () => void;
}

type Labels = Record<string, string> | undefined;

/** What a change looks like through a filter: a label change moves an object into or out of the selection. */
function translate(record: ChangeRecord, object: Resource, filter: FeedFilter): ChangeType | undefined {
  const now = matchesLabels(object, filter.labelSelector);
  if (record.type !== 'MODIFIED') return now ? record.type : undefined;
  const previous = record.previousLabels === undefined ? undefined : (JSON.parse(record.previousLabels) as Labels);
  const before = previous === undefined || !filter.labelSelector ? true : matchesLabels({ metadata: { labels: previous } } as Resource, filter.labelSelector);
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

function inScope(record: ChangeRecord, filter: FeedFilter): boolean {
  return record.kind === filter.kind && (!filter.namespace || record.namespace === filter.namespace);
}

export function createChangeFeed(deps: ChangeFeedDeps): ChangeFeed {
  const watchers = new Set<Watcher>();
  let closed = false;
  const replayRows = deps.reader.prepare(
    'SELECT rv, kind, namespace, type, json, previous_labels AS previousLabels FROM changes WHERE rv > ? AND rv <= ? AND kind = ? ORDER BY rv LIMIT ?',
  );

  function end(watcher: Watcher, error?: Error): void {
    if (watcher.ended) return;
    watcher.ended = true;
    watcher.error = error;
    watchers.delete(watcher);
    watcher.wake?.();
  }

  function deliver<T extends Resource>(record: ChangeRecord, filter: FeedFilter): WatchEvent<T> | undefined {
    if (!inScope(record, filter)) return undefined;
    const object = JSON.parse(record.json) as T;
    const type = translate(record, object, filter);
    return type ? { type, object } : undefined;
  }

  function gone(fromRv: number): GoneError {
    return new GoneError(`resourceVersion ${fromRv} is too old: history starts after ${deps.compactedRv()}`);
  }

  /** Committed rows after `fromRv` up to `upTo`, read a chunk at a time so that a long replay holds little. */
  async function* replay<T extends Resource>(filter: FeedFilter, fromRv: number, upTo: number): AsyncGenerator<WatchEvent<T>> {
    let cursor = fromRv;
    while (cursor < upTo) {
      if (cursor < deps.compactedRv()) throw gone(fromRv);
      const rows = replayRows.all(cursor, upTo, filter.kind, REPLAY_CHUNK) as Array<ChangeRecord & { previousLabels: string | null }>;
      for (const row of rows) {
        const event = deliver<T>({ ...row, previousLabels: row.previousLabels ?? undefined }, filter);
        if (event) yield event;
      }
      cursor = rows.length < REPLAY_CHUNK ? upTo : rows[rows.length - 1].rv;
    }
  }

  async function* stream<T extends Resource>(filter: FeedFilter, fromRv: number, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
    if (closed || signal?.aborted) return;
    if (fromRv < deps.compactedRv()) throw gone(fromRv);
    const upTo = deps.committedRv();
    // Registered before the replay starts, so that changes committed during it queue up behind it.
    const watcher: Watcher = { filter, afterRv: Math.max(fromRv, upTo), queue: new Fifo<ChangeRecord>(), ended: false };
    watchers.add(watcher);
    const onAbort = (): void => end(watcher);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const event of replay<T>(filter, fromRv, upTo)) {
        if (watcher.error) throw watcher.error;
        if (signal?.aborted || watcher.ended) return;
        yield event;
      }
      // Bounded by the watcher's life: abort, store close, overflow or the consumer stopping end it.
      for (;;) {
        if (signal?.aborted) return;
        const record = watcher.queue.shift();
        if (record) {
          const event = deliver<T>(record, filter);
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
      watchers.delete(watcher);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  function enqueue(watcher: Watcher, record: ChangeRecord): void {
    watcher.queue.push(record);
    // A consumer this far behind could not resume from its position either: end it as expired.
    if (watcher.queue.length > deps.queueLimit) {
      end(watcher, new GoneError(`watch on ${watcher.filter.kind} fell more than ${deps.queueLimit} changes behind`));
    }
    watcher.wake?.();
  }

  return {
    publish(records) {
      for (const watcher of watchers) {
        for (const record of records) {
          if (record.rv > watcher.afterRv && inScope(record, watcher.filter)) enqueue(watcher, record);
        }
      }
    },
    stream,
    close() {
      closed = true;
      for (const watcher of [...watchers]) end(watcher);
    },
  };
}
