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
 * restart starts empty, so the first reconcile of each guest reads the host (one still to be
 * created excepted, see firstLook).
 */
export interface ObservedCache {
  get(host: string, userid: string): ObservedEntry | undefined;
  /** undefined forgets the guest (absence is always checked on the host) */
  set(host: string, userid: string, state: GuestState | undefined, lookAgain?: string): void;
  invalidate(host: string, userid: string): void;
  /**
   * True the first time it is asked for a guest this cache has held nothing of: the caller may then
   * take it as absent without a read (observe.ts). Any later ask answers false, so that belief is
   * acted on at most once per process; holding a state for the guest forgets the ask.
   */
  firstLook(host: string, userid: string): boolean;
  size(): number;
}

export function createObservedCache(now: () => number = Date.now): ObservedCache {
  const entries = new Map<string, ObservedEntry>();
  const looked = new Set<string>();
  const keyOf = (host: string, userid: string) => `${host}\u0000${userid.toUpperCase()}`;
  return {
    get: (host, userid) => entries.get(keyOf(host, userid)),
    set(host, userid, state, lookAgain) {
      const key = keyOf(host, userid);
      if (state) {
        entries.set(key, { state, at: now(), ...(lookAgain ? { lookAgain } : {}) });
        looked.delete(key);
      } else {
        entries.delete(key);
      }
    },
    invalidate: (host, userid) => void entries.delete(keyOf(host, userid)),
    firstLook(host, userid) {
      const key = keyOf(host, userid);
      if (entries.has(key) || looked.has(key)) return false;
      looked.add(key);
      return true;
    },
    size: () => entries.size,
  };
}
