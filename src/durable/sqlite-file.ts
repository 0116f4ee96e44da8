/**
 * Opening a SQLite state file durably (what the SQLite store and the simulator's database share): the
 * directory is created, WAL journal (readers never block the writer; `sqlite3 .backup` works while it
 * runs) and synchronous=FULL, so a transaction is on disk when its COMMIT returns.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ZvmError } from '../errors.js';

export type SqliteDb = Database.Database;

export interface SqliteOpenOptions {
  /** page cache per connection in KiB (default 8 MiB). */
  cacheKiB?: number;
  /** how long to wait for a lock another process (a backup, the sqlite3 shell) holds; default 5 s */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

export function openSqliteFile(path: string, options: SqliteOpenOptions = {}): SqliteDb {
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: SqliteDb;
  try {
    db = new Database(path, options.readonly ? { readonly: true, fileMustExist: true } : {});
  } catch (err) {
    throw new ZvmError('UNAVAILABLE', `cannot open the state database ${path}`, { cause: err });
  }
  try {
    db.pragma(`cache_size = -${options.cacheKiB ?? 8192}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma('temp_store = MEMORY');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      // FULL: a commit is on disk when COMMIT returns (NORMAL would survive a process crash but not a power loss).
      db.pragma('synchronous = FULL');
    }
    return db;
  } catch (err) {
    db.close();
    throw new ZvmError('INTERNAL', `state database ${path} cannot be used (${(err as Error).message}); restore it from a backup or move it aside`, { cause: err });
  }
}
