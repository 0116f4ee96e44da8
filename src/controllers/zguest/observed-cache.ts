import type { GuestState } from '../../hypervisor/index.js';

/** What the controller last saw (or projected) of one guest, and when. */
export interface ObservedEntry {
  state: GuestState;
  /** ms since the epoch */
  at: number;
  /** the look-again annotation value in force when this was observed (see observe.ts) */
  lookAgain?: string;
}

/**
 * The observed state the controller already holds, per host and userid (a userid is host-global),
 * so that a reconcile after the controller's own change does not read the host again. Entries come
 * only from reads and from projections of calls that succeeded; any failure drops the entry, and
 * the drift detector drops entries whose power no longer matches the host's batched query. A
 * restart starts empty, so the first reconcile of each guest reads the host.
 */
export interface ObservedCache {
  get(host: string, userid: string): ObservedEntry | undefined;
  /** undefined forgets the guest (absence is always checked on the host) */
  set(host: string, userid: string, state: GuestState | undefined, lookAgain?: string): void;
  invalidate(host: string, userid: string): void;
  size(): number;
}

export function createObservedCache(now: () => number = Date.now): ObservedCache {
  const entries = new Map<string, ObservedEntry>();
  const keyOf = (host: string, userid: string) => `${host}\u0000${userid.toUpperCase()}`;
  return {
    get: (host, userid) => entries.get(keyOf(host, userid)),
    set(host, userid, state, lookAgain) {
      if (state) entries.set(keyOf(host, userid), { state, at: now(), ...(lookAgain ? { lookAgain } : {}) });
      else entries.delete(keyOf(host, userid));
    },
    invalidate: (host, userid) => void entries.delete(keyOf(host, userid)),
    size: () => entries.size,
  };
}
