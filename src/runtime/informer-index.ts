import type { Resource } from '../api/index.js';
import { keyOf, keyString } from '../store/port.js';
import type { Informer } from './informer.js';

/** Cached objects by a value computed from each, kept current by the informer's events. */
export interface InformerIndex<T extends Resource> {
  /** the cached objects indexed under `value` (shared: read-only), without a scan of the cache */
  lookup(value: string): T[];
}

/**
 * An index over an informer's cache (client-go's Indexer): lookups cost the size of the answer, not
 * of the cache, which is what keeps per-guest work flat from 1 000 to 20 000 guests (issue 23).
 */
export function createInformerIndex<T extends Resource>(informer: Pick<Informer<T>, 'addHandler'>, valuesOf: (obj: T) => string[]): InformerIndex<T> {
  // a value most often names one object (a guest's host and userid): that object stands in the bucket's
  // place, and a Map is made only for a second one (issue 38: a Map per guest was ~2 MB per 10 000 guests)
  const buckets = new Map<string, T | Map<string, T>>();
  const put = (obj: T): void => {
    const k = keyString(keyOf(obj));
    for (const v of valuesOf(obj)) {
      const bucket = buckets.get(v);
      if (bucket instanceof Map) bucket.set(k, obj);
      else if (bucket && keyString(keyOf(bucket)) !== k) buckets.set(v, new Map([[keyString(keyOf(bucket)), bucket], [k, obj]]));
      else buckets.set(v, obj);
    }
  };
  const drop = (obj: T): void => {
    const k = keyString(keyOf(obj));
    for (const v of valuesOf(obj)) {
      const bucket = buckets.get(v);
      if (bucket instanceof Map) {
        bucket.delete(k);
        if (bucket.size === 0) buckets.delete(v);
      } else if (bucket && keyString(keyOf(bucket)) === k) buckets.delete(v);
    }
  };
  informer.addHandler({
    onAdd: put,
    onUpdate(oldObj, newObj) {
      drop(oldObj);
      put(newObj);
    },
    onDelete: drop,
  });
  return {
    lookup(value) {
      const bucket = buckets.get(value);
      return bucket instanceof Map ? [...bucket.values()] : bucket ? [bucket] : [];
    },
  };
}
