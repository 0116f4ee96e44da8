/**
 * Opening a SQLite state file durably (what the SQLite store and the simulator's database share): the
 * directory is created, WAL journal (readers never block the writer; `sqlite3 .backup` works while it
 * runs) and synchronous=FULL, so a transaction is on disk when its COMMIT returns.
 * SqliteDb is a thin layer over node:sqlite's DatabaseSync adding what its callers share: statements
 * that return their first column (pluck), pragmas, and transactions that nest as savepoints.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ZvmError } from '../errors.js';
import { sqliteDriver } from './sqlite-driver.js';

type Param = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A statement whose rows are the value of their first column. */
export interface PluckedStatement {
  get(...params: Param[]): unknown;
  all(...params: Param[]): unknown[];
  iterate(...params: Param[]): IterableIterator<unknown>;
}

export interface SqliteDb {
  /** the file's path */
  readonly name: string;
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  pluck(sql: string): PluckedStatement;
  /** runs `PRAGMA <text>` and returns the first column of its first row */
  pragma(text: string): unknown;
  /** runs `fn` in a transaction (a savepoint inside an open one): committed when it returns, rolled back when it throws. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface SqliteOpenOptions {
  /**
   * page cache per connection in KiB (default 2 MiB, SQLite's own): a list of every object fills it to
   * the brim and it stays full, per connection (issue 38: 8 MiB cost the memory bench's controller ~12 MB of RSS
   * with 10 000 guests); a page not in it comes from the OS's file cache.
   */
  cacheKiB?: number;
  /** how long to wait for a lock another process (a backup, the sqlite3 shell) holds; default 5 s */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

function* firstColumns(rows: Iterator<unknown>): IterableIterator<unknown> {
  for (let r = rows.next(); !r.done; r = rows.next()) yield (r.value as unknown[])[0];
}

function plucked(db: DatabaseSync, sql: string): PluckedStatement {
  const stmt = db.prepare(sql);
  stmt.setReturnArrays(true);
  return {
    get: (...params) => (stmt.get(...params) as unknown as unknown[] | undefined)?.[0],
    all: (...params) => (stmt.all(...params) as unknown as unknown[][]).map((row) => row[0]),
    iterate: (...params) => firstColumns(stmt.iterate(...params) as Iterator<unknown>),
  };
}

/** Wraps an open connection. */
export function wrapSqlite(db: DatabaseSync, name: string): SqliteDb {
  let depth = 0;
  return {
    name,
    get inTransaction() {
      return db.isTransaction;
    },
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    pluck: (sql) => plucked(db, sql),
    pragma(text) {
      const row = db.prepare(`PRAGMA ${text}`).get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
    transaction<T>(fn: () => T): T {
      // the outermost level is a transaction of its own unless one is open (the store's group commit)
      const savepoint = `sp${depth}`;
      db.exec(`SAVEPOINT ${savepoint}`);
      depth += 1;
      try {
        const value = fn();
        db.exec(`RELEASE ${savepoint}`);
        return value;
      } catch (err) {
        // SQLite may have rolled the whole transaction back already (disk full, I/O error)
        if (db.isTransaction) db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        throw err;
      } finally {
        depth -= 1;
      }
    },
    close: () => db.close(),
  };
}

export function openSqliteFile(path: string, options: SqliteOpenOptions = {}): SqliteDb {
  const { DatabaseSync } = sqliteDriver();
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
  let raw: DatabaseSync;
  try {
    raw = new DatabaseSync(path, { readOnly: options.readonly ?? false });
  } catch (err) {
    throw new ZvmError('UNAVAILABLE', `cannot open the state database ${path} (${(err as Error).message})`, { cause: err });
  }
  const db = wrapSqlite(raw, path);
  try {
    db.exec(`PRAGMA cache_size = -${options.cacheKiB ?? 2048}`);
    db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.exec('PRAGMA temp_store = MEMORY');
    if (!options.readonly) {
      db.exec('PRAGMA journal_mode = WAL');
      // FULL: a commit is on disk when COMMIT returns (NORMAL would survive a process crash but not a power loss).
      db.exec('PRAGMA synchronous = FULL');
    }
    return db;
  } catch (err) {
    db.close();
    throw new ZvmError('INTERNAL', `state database ${path} cannot be used (${(err as Error).message}); restore it from a backup or move it aside`, { cause: err });
  }
}
