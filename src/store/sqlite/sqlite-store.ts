/**
 * SqliteStore: the StateStore port on an embedded SQLite database (Node's node:sqlite), standalone mode's
 * default. Same write rules and watch fan-out as the embedded store (../common/); what differs is where state lives:
 * - One row per object (kind, namespace, name, uid, resourceVersion, generation and the JSON); the
 *   process keeps no copy of the objects, so the informer cache is the only one in memory, and a write
 *   costs one row, whatever the number of objects.
 * - Every write is one transaction (a savepoint of the current group commit, see transaction-batcher.ts); it
 *   resolves only after COMMIT returned with synchronous=FULL, and watchers hear of it only then.
 * - Reads (get, list) go through a second, read-only connection and so see committed state only:
 *   a list's resourceVersion is exactly the state it returned.
 * - Watch history is the `changes` table (see change-feed.ts), kept for the last `historyLimit`
 *   changes and across restarts; a watch from before that answers 410 Gone.
 */
import type { Resource } from '../../api/index.js';
import { ZvmError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import type { ChangeType, ListOptions, ListResult, ObjectKey, StateStore, WatchEvent, WatchOptions } from '../port.js';
import { inListOrder } from '../common/list-order.js';
import { definitionOf, normalizeKey } from '../common/object-rules.js';
import { matchesLabels } from '../common/selector.js';
import { watchFrom } from '../common/watch-fanout.js';
import { createWriteVerbs } from '../common/write-verbs.js';
import { createChangeFeed, type ChangeRecord } from './change-feed.js';
import { getMeta, META, openReader, openWriter, setMeta, type Db } from './database.js';
import { createTransactionBatcher } from './transaction-batcher.js';
import { migrateJsonStore } from './migrate-json.js';
import { migrateStorageVersion } from './storage-version.js';
import { createStringPool } from '../../util/string-pool.js';
import { namespaceOf, objectReads, objectWrites } from './tables.js';

export interface SqliteStoreOptions {
  /** the database file (created when missing, with its directory) */
  path: string;
  log?: Logger;
  /** how many changes watches can resume from (default 10 000). */
  historyLimit?: number;
  /** an embedded store's JSON file to import once into a new database; it is then renamed `<file>.migrated`. */
  migrateFrom?: string;
  /** page cache per connection, KiB */
  cacheKiB?: number;
  /** wait for another process's lock this long before failing a write with UNAVAILABLE (default 5 s) */
  busyTimeoutMs?: number;
}

export const DEFAULT_SQLITE_HISTORY = 10_000;
/** change rows are dropped this many at a time (the table holds up to historyLimit + TRIM_STEP of them) */
const TRIM_STEP = 512;

function highestRv(db: Db): number {
  const changes = db.pluck('SELECT MAX(rv) FROM changes').get() as number | null;
  const objects = db.pluck('SELECT MAX(resource_version) FROM objects').get() as number | null;
  return Math.max(changes ?? 0, objects ?? 0, getMeta(db, META.compactedRv) ?? 0);
}

export function createSqliteStore(options: SqliteStoreOptions): StateStore {
  const log = (options.log ?? silentLogger()).child({ component: 'sqlite-store' });
  const historyLimit = Math.max(1, options.historyLimit ?? DEFAULT_SQLITE_HISTORY);
  const trimStep = Math.min(TRIM_STEP, Math.ceil(historyLimit / 4));
  const writer = openWriter(options.path, options);
  const imported = options.migrateFrom ? migrateJsonStore({ db: writer, jsonPath: options.migrateFrom, log }) : 0;
  migrateStorageVersion(writer, log, imported > 0);
  const reader = openReader(options.path, options);
  const rows = objectWrites(writer);
  const writerReads = objectReads(writer);
  const reads = objectReads(reader);

  let counter = highestRv(writer);
  let committedRv = counter;
  let compactedRv = getMeta(writer, META.compactedRv) ?? 0;
  /** compactedRv once the open batch commits */
  let trimmedTo = compactedRv;
  /** changes of the open batch, announced once it commits */
  let batchChanges: ChangeRecord[] = [];
  let closing: Promise<void> | undefined;
  log.info({ path: options.path, resourceVersion: counter }, 'state database opened');

  const feed = createChangeFeed({ reader, committedRv: () => committedRv, compactedRv: () => compactedRv, queueLimit: historyLimit });
  const batches = createTransactionBatcher({
    db: writer,
    log,
    beforeCommit() {
      // trimmed in steps of `trimStep` rows, so that most commits write no page for it
      const keepAfter = counter - historyLimit;
      if (keepAfter - compactedRv < trimStep) return;
      rows.trimChanges(keepAfter);
      setMeta(writer, META.compactedRv, keepAfter);
      trimmedTo = keepAfter;
    },
    afterCommit() {
      committedRv = counter;
      compactedRv = Math.max(compactedRv, trimmedTo);
      const done = batchChanges;
      batchChanges = [];
      feed.publish(done);
    },
    afterRollback() {
      counter = committedRv;
      trimmedTo = compactedRv;
      batchChanges = [];
    },
  });

  function assertOpen(): void {
    if (closing) throw new ZvmError('UNAVAILABLE', 'the SQLite store is closed');
  }

  /** The stored object as the writer sees it (including the open batch). */
  function stored(kind: string, key: ObjectKey): Resource | undefined {
    const k = normalizeKey(kind, key);
    const json = writerReads.get(kind, k.namespace ?? '', k.name);
    return json === undefined ? undefined : (JSON.parse(json) as Resource);
  }

  /** Writes the object (or removes it) under the next resourceVersion, with its change row, in the open batch. */
  async function commit<T extends Resource>(type: ChangeType, next: Resource, previous?: Resource): Promise<T> {
    const { value: json, committed } = batches.apply(() => {
      const rv = counter + 1;
      const object: Resource = { ...next, metadata: { ...next.metadata, resourceVersion: String(rv) } };
      const text = JSON.stringify(object);
      if (type === 'DELETED') rows.remove(object);
      else rows.upsert(object, text);
      const record: ChangeRecord = { rv, kind: object.kind, namespace: namespaceOf(object), type, json: text };
      if (type === 'MODIFIED' && previous) record.previousLabels = JSON.stringify(previous.metadata.labels ?? {});
      rows.appendChange(record);
      counter = rv;
      batchChanges.push(record);
      return text;
    });
    await committed;
    return JSON.parse(json) as T;
  }

  const writes = createWriteVerbs({
    assertOpen,
    find: stored,
    commit,
    async unchanged<T extends Resource>(current: Resource) {
      // The answer is the current state, which may still be in the open batch: wait until it is durable.
      await batches.settled();
      return current as T;
    },
  });

  // a list's objects shared their repeated strings while young: an informer's cache of thousands would
  // otherwise keep the copies until it interns them, promoted into old-space pages that stay committed
  const listStrings = createStringPool();
  return {
    async get<T extends Resource>(kind: string, key: ObjectKey) {
      const k = normalizeKey(definitionOf(kind).kind, key);
      const json = reads.get(kind, k.namespace ?? '', k.name);
      return json === undefined ? undefined : (JSON.parse(json) as T);
    },

    async list<T extends Resource>(kind: string, opts: ListOptions = {}): Promise<ListResult<T>> {
      definitionOf(kind);
      const items: T[] = [];
      // read synchronously to the end: no commit can land between the rows and the version returned
      for (const json of reads.scan(kind, opts.namespace || undefined)) {
        const obj = listStrings.intern(JSON.parse(json) as T);
        if (matchesLabels(obj, opts.labelSelector)) items.push(obj);
      }
      return { items: inListOrder(items), resourceVersion: String(committedRv) };
    },

    ...writes,

    watch<T extends Resource>(kind: string, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
      // Without a resourceVersion the watch starts after the last commit now.
      return watchFrom<T>(kind, opts, committedRv, feed.stream);
    },

    close() {
      closing ??= (async () => {
        try {
          await batches.settled().catch(() => undefined);
        } finally {
          feed.close();
          reader.close();
          writer.close();
          log.info({ resourceVersion: committedRv }, 'state database closed');
        }
      })();
      return closing;
    },
  };
}
