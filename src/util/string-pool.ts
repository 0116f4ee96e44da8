/**
 * Shares the repeated short strings of the objects an informer caches (issue 38: memory). Each object was
 * parsed from JSON on its own, so the kind, apiVersion, namespace, finalizer, condition types, reasons and
 * messages of 10 000 guests were 10 000 copies each: ~7 MB of a controller's heap. Identity fields and
 * timestamps, unique per object, are left as they are: pooling them would only fill the pool.
 */
const MAX_LENGTH = 96;
const UNIQUE_KEYS = new Set(['uid', 'name', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'lastTransitionTime']);

export interface StringPool {
  /** replaces, in place, each poolable string of `obj` (at any depth) by the pool's copy of it */
  intern<T>(obj: T): T;
  readonly size: number;
}

/** An RFC 3339 time (`2026-11-29T01:44:26Z`): unique per object as often as not. */
const isTimestamp = (s: string): boolean => s.length >= 20 && s.charCodeAt(4) === 45 && s.charCodeAt(10) === 84;

/** A pool of at most `limit` strings: once full, strings it lacks stay unshared (the common ones come first). */
export function createStringPool(limit = 8192): StringPool {
  const pool = new Map<string, string>();

  function share(s: string): string {
    if (s.length > MAX_LENGTH || isTimestamp(s)) return s;
    const found = pool.get(s);
    if (found !== undefined) return found;
    if (pool.size < limit) pool.set(s, s);
    return s;
  }

  function walk(node: object): void {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') node[i] = share(v);
        else if (v !== null && typeof v === 'object') walk(v);
      }
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      if (typeof v === 'string') {
        if (!UNIQUE_KEYS.has(key)) record[key] = share(v);
      } else if (v !== null && typeof v === 'object') walk(v);
    }
  }

  return {
    intern(obj) {
      if (obj !== null && typeof obj === 'object') walk(obj);
      return obj;
    },
    get size() {
      return pool.size;
    },
  };
}
