/**
 * Group commit on one SQLite connection: the first write opens a transaction (BEGIN IMMEDIATE) and
 * schedules its COMMIT for the end of the current turn of the event loop; every write made until then
 * joins it, each in its own savepoint (a write that throws undoes only itself). So a burst of N
 * concurrent writes costs one commit (one WAL fsync), not N, and every caller resumes only after the
 * commit holding its change has returned. A failed commit rolls the whole batch back: every write in
 * it rejects with UNAVAILABLE and nothing of it remains — no half-applied change.
 */
import { deferred, type Deferred } from '../../durable/deferred.js';
import { ZvmError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Db } from './database.js';

export interface TransactionBatcher {
  /** Runs `fn` inside the open batch; its writes become durable with the batch's commit. */
  apply<T>(fn: () => T): { value: T; committed: Promise<void> };
  /** Resolves once the batch open now (if any) has committed: what a no-op write must wait for. */
  settled(): Promise<void>;
  /** true while a batch is open. */
  readonly open: boolean;
}

export interface TransactionBatcherDeps {
  db: Db;
  log: Logger;
  /** last work inside the transaction (trimming, bookkeeping); a throw fails the batch. */
  beforeCommit(): void;
  /** after a successful COMMIT, before the writers resume: publish what the batch changed. */
  afterCommit(): void;
  /** after a failed batch was rolled back: forget what it changed. */
  afterRollback(): void;
}

export function createTransactionBatcher(deps: TransactionBatcherDeps): TransactionBatcher {
  const { db, log } = deps;
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commitStmt = db.prepare('COMMIT');
  let current: Deferred | undefined;

  function rollback(): void {
    try {
      if (db.inTransaction) db.prepare('ROLLBACK').run();
    } catch (err) {
      log.error({ err }, 'rollback of a failed batch failed');
    }
  }

  function commit(): void {
    const batch = current;
    current = undefined;
    if (!batch) return;
    try {
      deps.beforeCommit();
      commitStmt.run();
    } catch (err) {
      rollback();
      deps.afterRollback();
      log.error({ err }, 'state database commit failed; the batch is rolled back');
      batch.reject(new ZvmError('UNAVAILABLE', `the state could not be saved (${(err as Error).message}); the change was not applied`, { cause: err }));
      return;
    }
    deps.afterCommit();
    batch.resolve();
  }

  function openBatch(): Deferred {
    if (current) return current;
    begin.run();
    current = deferred();
    // The promise is awaited by the writers; a rejection with none left waiting must not crash the process.
    current.promise.catch(() => undefined);
    setImmediate(commit);
    return current;
  }

  return {
    apply<T>(fn: () => T) {
      try {
        const batch = openBatch();
        const value = db.transaction(fn);
        return { value, committed: batch.promise };
      } catch (err) {
        if (err instanceof ZvmError) throw err;
        throw new ZvmError('UNAVAILABLE', `the state could not be saved (${(err as Error).message}); the change was not applied`, { cause: err });
      }
    },
    settled() {
      return current ? current.promise : Promise.resolve();
    },
    get open() {
      return current !== undefined;
    },
  };
}
