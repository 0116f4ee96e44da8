/**
 * The SQLite file of the store: opening it (WAL, full sync, foreign writers kept out), its schema and
 * the small key/value `meta` table. One row per object (the indexed fields beside its JSON) and an
 * append-only `changes` table that watches replay from.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ZvmError } from '../../errors.js';

export type Db = Database.Database;

export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
  kind             TEXT NOT NULL,
  namespace        TEXT NOT NULL,  -- '' for cluster-scoped kinds
  name             TEXT NOT NULL,
  uid              TEXT NOT NULL,
  resource_version INTEGER NOT NULL,
  generation       INTEGER NOT NULL,
  json             TEXT NOT NULL,
  UNIQUE (kind, namespace, name)
);
CREATE TABLE IF NOT EXISTS changes (
  rv              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL,
  namespace       TEXT NOT NULL,
  type            TEXT NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED')),
  json            TEXT NOT NULL,
  -- labels before a MODIFIED change, so that a label-selected watch sees objects enter and leave it
  previous_labels TEXT
);
`;

/** Keys of the meta table. */
export const META = {
  schemaVersion: 'schema_version',
  /** highest rv whose change row is gone (trimmed, or before a migration): watches from below it get 410 Gone. */
  compactedRv: 'compacted_rv',
  /** 1 once an embedded store's JSON file has been imported (the rename to .migrated may still be pending). */
  migratedJson: 'migrated_json',
} as const;

export interface OpenOptions {
  /** page cache per connection in KiB (SQLite's default is 2 MiB). */
  cacheKiB?: number;
  /** how long to wait for a lock another process (a backup, the sqlite3 shell) holds; default 5 s */
  busyTimeoutMs?: number;
}

/** The writer connection: creates the file and schema when missing, refuses a newer schema. */
export function openWriter(path: string, options: OpenOptions = {}): Db {
  mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path);
  } catch (err) {
    throw new ZvmError('UNAVAILABLE', `cannot open the state database ${path}`, { cause: err });
  }
  try {
    tune(db, options);
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk when COMMIT returns (NORMAL would survive a process crash but not a power loss).
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    const version = getMeta(db, META.schemaVersion);
    if (version === undefined) setMeta(db, META.schemaVersion, SCHEMA_VERSION);
    else if (version > SCHEMA_VERSION) {
      throw new ZvmError('INTERNAL', `state database ${path} has schema ${version}, newer than this program's ${SCHEMA_VERSION}; refusing to start over it`);
    }
    return db;
  } catch (err) {
    db.close();
    if (err instanceof ZvmError) throw err;
    throw new ZvmError('INTERNAL', `state database ${path} cannot be used; refusing to start over it`, { cause: err });
  }
}

/** A reader connection: in WAL mode it sees the last committed state, never the writer's open batch. */
export function openReader(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  tune(db, options);
  return db;
}

function tune(db: Db, options: OpenOptions): void {
  db.pragma(`cache_size = -${options.cacheKiB ?? 8192}`);
  // another process (a backup, the sqlite3 shell) may hold a lock for a moment
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('temp_store = MEMORY');
}

export function getMeta(db: Db, key: string): number | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: number): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}
