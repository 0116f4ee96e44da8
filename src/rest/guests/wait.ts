import type { Resource } from '../../api/index.js';
import type { ObjectKey, StateStore } from '../../store/port.js';

export type WaitOutcome<R> = { done: true; value: R } | { done: false };

export interface WaitOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  signal?: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Drains a watch in the background and wakes the waiter on each event for the object. */
function startWatch(store: StateStore, kind: string, key: ObjectKey, signal: AbortSignal, wake: () => void): void {
  void (async () => {
    try {
      for await (const ev of store.watch(kind, { namespace: key.namespace, signal })) {
        if (ev.object.metadata.name === key.name) wake();
      }
    } catch {
      // a failed or ended watch only costs latency: the poll below still converges
    }
  })();
}

/**
 * Re-reads one object until `check` returns a value, bounded in time: a watch wakes the waiter
 * early, a poll interval bounds the delay when the watch is silent or unavailable. `check` sees
 * undefined once the object is gone. Returns `{ done: false }` at the deadline.
 */
export async function waitForObject<T extends Resource, R>(
  store: StateStore,
  kind: string,
  key: ObjectKey,
  check: (obj: T | undefined) => R | undefined,
  opts: WaitOptions,
): Promise<WaitOutcome<R>> {
  const ac = new AbortController();
  const onAbort = () => ac.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = Date.now() + opts.timeoutMs;
  let wakeUp: (() => void) | undefined;
  startWatch(store, kind, key, ac.signal, () => wakeUp?.());
  try {
    for (;;) {
      const value = check(await store.get<T>(kind, key));
      if (value !== undefined) return { done: true, value };
      const left = deadline - Date.now();
      if (left <= 0 || ac.signal.aborted) return { done: false };
      const tick = new AbortController();
      wakeUp = () => tick.abort();
      await sleep(Math.min(left, opts.pollIntervalMs), AbortSignal.any([tick.signal, ac.signal]));
      wakeUp = undefined;
    }
  } finally {
    ac.abort();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
