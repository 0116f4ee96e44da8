/**
 * Time as the runtime sees it. Injectable so that tests can drive backoff and delays
 * without sleeping or asserting wall-clock timings.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's setTimeout overflows (fires at once) above this; longer waits are re-armed. */
export const MAX_TIMER_MS = 2_147_483_647;

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Resolves after ms, or at once when the signal aborts (never rejects: callers check the signal). */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = realClock): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      resolve();
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
