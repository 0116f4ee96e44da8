import type { Resource } from '../../../src/api/index.js';
import type { Informer, InformerHandler } from '../../../src/runtime/informer.js';
import { keyOf, keyString } from '../../../src/store/port.js';

/** An informer whose events the test emits by hand. */
export interface StubInformer extends Informer {
  emitAdd(obj: Resource): void;
  emitUpdate(old: Resource, obj: Resource): void;
  markSynced(): void;
}

export function createStubInformer(kind: string, synced = true): StubInformer {
  const handlers = new Set<InformerHandler>();
  const cache = new Map<string, Resource>();
  let isSynced = synced;
  const syncWaiters: Array<() => void> = [];
  return {
    kind,
    name: `stub/${kind}`,
    needsLeaderElection: false,
    addHandler(h) {
      handlers.add(h);
      return () => void handlers.delete(h);
    },
    get: (key) => cache.get(keyString(key)),
    list: () => [...cache.values()],
    hasSynced: () => isSynced,
    waitForSync(signal) {
      if (isSynced) return Promise.resolve(true);
      return new Promise((resolve) => {
        syncWaiters.push(() => resolve(true));
        signal?.addEventListener('abort', () => resolve(false), { once: true });
      });
    },
    start: async () => undefined,
    stop: () => undefined,
    emitAdd(obj) {
      cache.set(keyString(keyOf(obj)), obj);
      for (const h of handlers) h.onAdd?.(obj);
    },
    emitUpdate(old, obj) {
      cache.set(keyString(keyOf(obj)), obj);
      for (const h of handlers) h.onUpdate?.(old, obj);
    },
    markSynced() {
      isSynced = true;
      for (const resolve of syncWaiters.splice(0)) resolve();
    },
  };
}
