/**
 * Group commit for a state file: at most one write in flight; every request made while it runs is
 * served by the next single write, which snapshots the latest state when it starts. So a burst of N
 * concurrent writes costs two file writes, not N, and every caller still resumes only after a write
 * that contains its change has reached the disk.
 */
import { ZvmError } from '../errors.js';
import type { Logger } from '../log.js';
import { deferred, type Deferred } from './deferred.js';

export interface GroupCommit {
  /** Resolves once a write started after this call has completed (so it holds the caller's change). */
  flush(): Promise<void>;
}

export interface GroupCommitDeps {
  /** takes the snapshot and writes it; called with no other write in flight. */
  write(): Promise<void>;
  log: Logger;
}

export function createGroupCommit(deps: GroupCommitDeps): GroupCommit {
  let running = false;
  let next: Deferred | undefined;

  async function drain(): Promise<void> {
    running = true;
    // Each round serves every request made before it began; the loop stops once a round adds none.
    while (next) {
      const batch = next;
      next = undefined;
      try {
        await deps.write();
        batch.resolve();
      } catch (err) {
        deps.log.error({ err }, 'state file write failed');
        batch.reject(new ZvmError('UNAVAILABLE', `the state could not be saved (${(err as Error).message})`, { cause: err }));
      }
    }
    running = false;
  }

  return {
    flush() {
      next ??= deferred();
      const { promise } = next;
      if (!running) void drain();
      return promise;
    },
  };
}
