/**
 * The SQLite file of the store: opening it (WAL, full sync, foreign writers kept out), its schema and
 * the small key/value `meta` table. One row per object (the indexed fields beside its JSON) and an
 * append-only `changes` table that watches replay from.
 */
import { openSqliteFile, type SqliteDb, type SqliteOpenOptions } from '../../durable/index.js';
import { ZvmError } from '../../errors.js';

export type Db = SqliteDb;

/**
 * 1: release 0.1.0; 2: every row at the storage version (storage-version.ts moves a schema-1 file there on
 * open). A release that knows only 1 refuses the file rather than misread it.
 */
export const SCHEMA_VERSION = 2;

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

export type OpenOptions = Omit<SqliteOpenOptions, 'readonly'>;

/** The writer connection: creates the file and schema when missing, refuses a newer schema. */
export function openWriter(path: string, options: OpenOptions = {}): Db {
  const db = openSqliteFile(path, options);
  try {
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
  return openSqliteFile(path, { ...options, readonly: true });
}

export function getMeta(db: Db, key: string): number | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: number): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}
