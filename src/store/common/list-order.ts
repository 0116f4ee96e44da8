/**
 * The order lists come in, the apiserver's: by keyString, "namespace/name" as one string (etcd's key
 * order, and its watch cache's), so a namespace another one starts with lists after it: "a-b/x" before
 * "a/x". The kube store gets it from the apiserver; the embedded and SQLite stores sort with this.
 */
import type { Resource } from '../../api/index.js';
import { keyOf, keyString } from '../port.js';

export function compareKeyStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `objects` sorted in list order (a new array; each key is built once). */
export function inListOrder<T extends Resource>(objects: readonly T[]): T[] {
  return objects.map((o) => [keyString(keyOf(o)), o] as const).sort(([a], [b]) => compareKeyStrings(a, b)).map(([, o]) => o);
}
