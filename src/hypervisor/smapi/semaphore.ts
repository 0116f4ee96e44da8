/** A counting semaphore: at most `size` holders; waiters are served first come, first served. */
import { ZvmError } from '../../errors.js';

export interface Semaphore {
  /** Runs `task` holding one permit. An abort while waiting rejects without running it. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(size: number): Semaphore {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be a positive integer, got ${size}`);
  let active = 0;
  const queue: Array<() => void> = [];

  function acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ZvmError('UNAVAILABLE', 'aborted while waiting for a SMAPI connection'));
    if (active < size) {
      active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        active++;
        resolve();
      };
      const onAbort = (): void => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        reject(new ZvmError('UNAVAILABLE', 'aborted while waiting for a SMAPI connection'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
    });
  }

  function release(): void {
    active--;
    queue.shift()?.();
  }

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
