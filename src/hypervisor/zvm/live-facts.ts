/**
 * Host-wide live reads that spare the host (issue 38): host facts and disk-pool figures are read once
 * per period, concurrent readers share one read in flight (single-flight), and any SMAPI call that
 * may change them (everything but a query) forgets them, so a reader after a write sees the write.
 * A read that was in flight across a write is handed to its waiters but not kept.
 */
import type { SmapiCall } from './call.js';

/** How long host facts and pool figures are kept when nothing changed them (a few seconds). */
export const DEFAULT_FACTS_PERIOD_MS = 5_000;

export interface LiveFacts {
  /** the value cached under `key`, or the read in flight, or a new read by `load` */
  read<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** forgets every cached value (a write happened) */
  invalidate(): void;
  /** `smapi`, with every call that is not a query forgetting the facts before and after it */
  invalidatedBy(smapi: SmapiCall): SmapiCall;
}

interface Entry {
  generation: number;
  at: number;
  value?: Promise<unknown>;
  settled: boolean;
}

/** SMAPI functions that only read: `*_Query`, `*_Query_DM`, `*_Query_Extended`… */
export const isQuery = (fn: string): boolean => /_Query(_|$)/.test(fn);

export function createLiveFacts(periodMs = DEFAULT_FACTS_PERIOD_MS, now: () => number = Date.now): LiveFacts {
  const entries = new Map<string, Entry>();
  let generation = 0;

  function invalidate(): void {
    generation += 1;
    entries.clear();
  }

  function fresh(e: Entry | undefined): e is Entry & { value: Promise<unknown> } {
    if (!e?.value || e.generation !== generation) return false;
    return !e.settled || now() - e.at < periodMs;
  }

  return {
    read<T>(key: string, load: () => Promise<T>): Promise<T> {
      const known = entries.get(key);
      if (fresh(known)) return known.value as Promise<T>;
      const entry: Entry = { generation, at: now(), settled: false };
      const value = load();
      entry.value = value;
      entries.set(key, entry);
      value.then(
        () => {
          entry.settled = true;
          entry.at = now();
        },
        // a failed read is not kept: the next reader asks again
        () => void (entries.get(key) === entry && entries.delete(key)),
      );
      return value;
    },
    invalidate,
    invalidatedBy(smapi) {
      return async (fn, target, params, accept, opts) => {
        if (isQuery(fn)) return smapi(fn, target, params, accept, opts);
        invalidate();
        try {
          return await smapi(fn, target, params, accept, opts);
        } finally {
          invalidate();
        }
      };
    },
  };
}
