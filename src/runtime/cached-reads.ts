import type { Resource } from '../api/index.js';
import { ConflictError } from '../errors.js';
import { copyPlainJson } from '../store/common/json.js';
import { keyOf, keyString, type ObjectKey, type StateStore } from '../store/port.js';

/** What the store reads instead: an informer's cache of the kind. */
export interface CachedCopies {
  get(key: ObjectKey): Resource | undefined;
}

/** the smallest number of remembered writes worth a sweep */
const SWEEP_MIN = 64;

export interface CachedReadsStore extends StateStore {
  /** writes remembered for the reads that may come before the cache sees them */
  remembered(): number;
}

/**
 * A StateStore whose get() of one kind answers from an informer's cache, so a reconcile starts without
 * a request to the apiserver (issue 23). While the cache has not moved on since this process wrote the
 * object (the requeue after a write comes before the watch event), get() answers with what that write
 * returned; after a write of the object failed with a conflict, it reads the server once.
 */
export function withCachedReads(store: StateStore, kind: string, cache: CachedCopies): CachedReadsStore {
  /** per key this process wrote: the cache's resourceVersion before the write, and what the write returned */
  const written = new Map<string, { key: ObjectKey; before: string; result: Resource }>();
  const mustRead = new Set<string>();
  const versionIn = (key: ObjectKey): string => cache.get(key)?.metadata.resourceVersion ?? '';
  let sweepAt = SWEEP_MIN;

  /**
   * Forgets the writes the cache has moved past. Most are never read again (a settled guest's last
   * status write, a deleted guest), so without this the map would keep a copy of every object written.
   * Sweeping when the map has doubled keeps the cost per write constant.
   */
  function sweep(): void {
    if (written.size < sweepAt) return;
    for (const [id, w] of written) if (versionIn(w.key) !== w.before) written.delete(id);
    sweepAt = Math.max(SWEEP_MIN, written.size * 2);
  }

  async function recorded<T extends Resource>(key: ObjectKey, write: () => Promise<T>): Promise<T> {
    const id = keyString(key);
    const before = versionIn(key);
    try {
      const result = await write();
      written.set(id, { key, before, result });
      sweep();
      return result;
    } catch (err) {
      if (err instanceof ConflictError) mustRead.add(id);
      throw err;
    }
  }

  return {
    async get<T extends Resource>(k: string, key: ObjectKey) {
      if (k !== kind) return store.get<T>(k, key);
      const id = keyString(key);
      const mine = written.get(id);
      const cached = cache.get(key);
      if (mustRead.delete(id)) {
        written.delete(id);
        return store.get<T>(k, key);
      }
      // copies: callers may change what they read, the cache's objects are shared
      if (mine && (cached?.metadata.resourceVersion ?? '') === mine.before) return copyPlainJson(mine.result as T);
      written.delete(id);
      return cached ? copyPlainJson(cached as T) : store.get<T>(k, key);
    },
    list: (k, options) => store.list(k, options),
    create: (obj) => store.create(obj),
    update: (obj) => (obj.kind === kind ? recorded(keyOf(obj), () => store.update(obj)) : store.update(obj)),
    updateStatus: (obj) => (obj.kind === kind ? recorded(keyOf(obj), () => store.updateStatus(obj)) : store.updateStatus(obj)),
    patch: (k, key, patch, options) => (k === kind ? recorded(key, () => store.patch(k, key, patch, options)) : store.patch(k, key, patch, options)),
    patchStatus: (k, key, status, options) =>
      k === kind ? recorded(key, () => store.patchStatus(k, key, status, options)) : store.patchStatus(k, key, status, options),
    delete: (k, key, options) => store.delete(k, key, options),
    watch: (k, options) => store.watch(k, options),
    ...(store.fieldManagerOf ? { fieldManagerOf: store.fieldManagerOf.bind(store) } : {}), // a rare read: straight to the store
    close: () => store.close(),
    remembered: () => written.size,
  };
}
