/**
 * A Map that notes which of its entries a caller may have changed, so that the simulator's SQLite
 * persistence writes only those rows. Handlers mutate entries in place after `get`, so a `get` counts
 * as a possible change, as do `set` and `delete`; iterating over entries counts as touching all of them.
 * Reads that hand out no entry (`has`, `keys`, `size`) count as nothing. The persistence then compares
 * each touched entry with what it last wrote, so a touch that changed nothing costs no write.
 */
export class TrackedMap<K, V> extends Map<K, V> {
  /** keys touched since the last take() */
  private touchedKeys = new Set<K>();
  private touchedAll = false;

  override get(key: K): V | undefined {
    this.touchedKeys?.add(key);
    return super.get(key);
  }

  override set(key: K, value: V): this {
    // Map's constructor calls set before the field initialisers have run
    this.touchedKeys?.add(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.touchedKeys.add(key);
    return super.delete(key);
  }

  override clear(): void {
    this.touchedAll = true;
    super.clear();
  }

  override values(): MapIterator<V> {
    this.touchedAll = true;
    return super.values();
  }

  override entries(): MapIterator<[K, V]> {
    this.touchedAll = true;
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.touchedAll = true;
    return super[Symbol.iterator]();
  }

  override forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.touchedAll = true;
    super.forEach(fn, thisArg);
  }

  /** What was touched since the last call ('all' after an iteration), and starts afresh. */
  take(): Set<K> | 'all' {
    const out = this.touchedAll ? 'all' : this.touchedKeys;
    this.touchedKeys = new Set();
    this.touchedAll = false;
    return out;
  }

  /** Forgets what was touched (a call that changed nothing). */
  forget(): void {
    this.take();
  }
}
