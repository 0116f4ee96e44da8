import type { Resource } from '../../../src/api/index.js';
import { GoneError, NotSupportedError } from '../../../src/errors.js';
import { keyOf, keyString, type ListResult, type StateStore, type WatchEvent, type WatchOptions } from '../../../src/store/port.js';

/**
 * A tiny list+watch store for informer tests: one kind, a change history with versions, and knobs to
 * compact the history (→ GoneError), end every open watch, or make the next watch fail.
 */
export interface FakeStore extends StateStore {
  put(name: string, spec?: Record<string, unknown>): Resource;
  remove(name: string): void;
  bookmark(): string;
  /** forgets history up to now: watches from older versions get GoneError. */
  compact(): void;
  endWatches(): void;
  failNextWatch(err: Error): void;
  watchCalls: Array<string | undefined>;
  listCalls(): number;
  openWatches(): number;
}

interface Subscriber {
  push(event: WatchEvent): void;
  end(): void;
}

const unsupported = (): never => {
  throw new NotSupportedError('fake store: list and watch only');
};

export function aResource(name: string, rv: number, spec: Record<string, unknown> = {}): Resource {
  return { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: 'default', resourceVersion: String(rv) }, spec };
}

export function createFakeStore(): FakeStore {
  const objects = new Map<string, Resource>();
  const history: Array<{ rv: number; event: WatchEvent }> = [];
  const subscribers = new Set<Subscriber>();
  let rv = 0;
  let oldestRv = 0;
  let lists = 0;
  let nextWatchError: Error | undefined;
  const watchCalls: Array<string | undefined> = [];

  function publish(event: WatchEvent): void {
    history.push({ rv, event });
    for (const s of subscribers) s.push(event);
  }

  async function* watch(_kind: string, options: WatchOptions = {}): AsyncGenerator<WatchEvent> {
    watchCalls.push(options.resourceVersion);
    if (nextWatchError) {
      const err = nextWatchError;
      nextWatchError = undefined;
      throw err;
    }
    const from = Number(options.resourceVersion ?? rv);
    if (from < oldestRv) throw new GoneError(`resourceVersion ${from} is too old`);
    const pending: WatchEvent[] = history.filter((h) => h.rv > from).map((h) => h.event);
    let ended = false;
    let wake: (() => void) | undefined;
    const subscriber: Subscriber = {
      push: (e) => {
        if (ended) return; // an ended watch hears nothing more, even before its consumer notices
        pending.push(e);
        wake?.();
      },
      end: () => {
        ended = true;
        wake?.();
      },
    };
    subscribers.add(subscriber);
    options.signal?.addEventListener('abort', subscriber.end, { once: true });
    try {
      for (let guard = 0; guard < 1_000_000; guard += 1) {
        const next = pending.shift();
        if (next) {
          yield next;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      subscribers.delete(subscriber);
    }
  }

  return {
    watchCalls,
    listCalls: () => lists,
    openWatches: () => subscribers.size,
    put(name, spec = {}) {
      rv += 1;
      const obj = aResource(name, rv, spec);
      const type = objects.has(name) ? 'MODIFIED' : 'ADDED';
      objects.set(name, obj);
      publish({ type, object: obj });
      return obj;
    },
    remove(name) {
      const old = objects.get(name);
      if (!old) return;
      rv += 1;
      objects.delete(name);
      publish({ type: 'DELETED', object: { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } } });
    },
    bookmark() {
      rv += 1;
      publish({ type: 'BOOKMARK', object: { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: '', resourceVersion: String(rv) }, spec: {} } });
      return String(rv);
    },
    compact() {
      oldestRv = rv;
      history.length = 0;
      for (const s of subscribers) s.end();
    },
    endWatches() {
      for (const s of subscribers) s.end();
    },
    failNextWatch(err) {
      nextWatchError = err;
    },
    async list<T extends Resource>(): Promise<ListResult<T>> {
      lists += 1;
      return { items: [...objects.values()].sort((a, b) => keyString(keyOf(a)).localeCompare(keyString(keyOf(b)))) as T[], resourceVersion: String(rv) };
    },
    watch: watch as StateStore['watch'],
    get: unsupported,
    create: unsupported,
    update: unsupported,
    patch: unsupported,
    updateStatus: unsupported,
    patchStatus: unsupported,
    delete: unsupported,
    close: async () => undefined,
  };
}
