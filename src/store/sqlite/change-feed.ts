/**
 * Watches of the SQLite store. History lives in the `changes` table, not in memory: a watch from a
 * resourceVersion first replays committed rows after it (in chunks, on the reader connection), then
 * takes live changes as batches commit. Each watcher queues the committed JSON text and parses its own
 * copy on delivery, so the store holds no second copy of the objects it has announced.
 */
import type { Resource } from '../../api/index.js';
import type { ChangeType, WatchEvent } from '../port.js';
import { matchesLabels, seenThrough, type WatchFilter } from '../common/selector.js';
import { createWatchFanout, tooOld } from '../common/watch-fanout.js';
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

export interface ChangeFeed {
  /** Announces committed changes, in increasing rv order. */
  publish(records: ChangeRecord[]): void;
  /** Every matching change after `fromRv`; GoneError when the table no longer reaches back that far. */
  stream<T extends Resource>(filter: WatchFilter, fromRv: number, signal?: AbortSignal): AsyncIterable<WatchEvent<T>>;
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

type Labels = Record<string, string> | undefined;

/** What a change looks like through a filter. */
function translate(record: ChangeRecord, object: Resource, filter: WatchFilter): ChangeType | undefined {
  const previous = record.previousLabels === undefined ? undefined : (JSON.parse(record.previousLabels) as Labels);
  const before = previous === undefined || !filter.labelSelector ? true : matchesLabels({ metadata: { labels: previous } } as Resource, filter.labelSelector);
  return seenThrough(record.type, matchesLabels(object, filter.labelSelector), before);
}

function inScope(record: ChangeRecord, filter: WatchFilter): boolean {
  return record.kind === filter.kind && (!filter.namespace || record.namespace === filter.namespace);
}

export function createChangeFeed(deps: ChangeFeedDeps): ChangeFeed {
  const fanout = createWatchFanout<ChangeRecord>(deps.queueLimit);
  const replayRows = deps.reader.prepare(
    'SELECT rv, kind, namespace, type, json, previous_labels AS previousLabels FROM changes WHERE rv > ? AND rv <= ? AND kind = ? ORDER BY rv LIMIT ?',
  );

  function deliver<T extends Resource>(record: ChangeRecord, filter: WatchFilter): WatchEvent<T> | undefined {
    if (!inScope(record, filter)) return undefined;
    const object = JSON.parse(record.json) as T;
    const type = translate(record, object, filter);
    return type ? { type, object } : undefined;
  }

  /** Committed rows after `fromRv` up to `upTo`, read a chunk at a time so that a long replay holds little. */
  async function* replay<T extends Resource>(filter: WatchFilter, fromRv: number, upTo: number): AsyncGenerator<WatchEvent<T>> {
    let cursor = fromRv;
    while (cursor < upTo) {
      if (cursor < deps.compactedRv()) throw tooOld(fromRv, deps.compactedRv());
      const rows = replayRows.all(cursor, upTo, filter.kind, REPLAY_CHUNK) as unknown as Array<ChangeRecord & { previousLabels: string | null }>;
      for (const row of rows) {
        const event = deliver<T>({ ...row, previousLabels: row.previousLabels ?? undefined }, filter);
        if (event) yield event;
      }
      cursor = rows.length < REPLAY_CHUNK ? upTo : rows[rows.length - 1].rv;
    }
  }

  return {
    publish(records) {
      for (const record of records) fanout.publish(record);
    },
    stream<T extends Resource>(filter: WatchFilter, fromRv: number, signal?: AbortSignal) {
      const upTo = deps.committedRv();
      // Only live changes after the replay's end queue up; they arrive while the replay runs.
      const afterRv = Math.max(fromRv, upTo);
      return fanout.watch<ChangeRecord, T>({
        kind: filter.kind,
        fromRv,
        compactedRv: deps.compactedRv(),
        select: (record) => (record.rv > afterRv && inScope(record, filter) ? record : undefined),
        deliver: (record) => deliver<T>(record, filter),
        replay: replay<T>(filter, fromRv, upTo),
        signal,
      });
    },
    close: fanout.close,
  };
}
