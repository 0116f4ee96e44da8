/**
 * EmbeddedStore: the StateStore port in process, for standalone mode and fast tests.
 *
 * Semantics are those of the port (and of the Kubernetes API): see ../common/object-rules.ts for the write rules.
 * Choices of this adapter:
 * - Namespaced objects without a namespace go to `default`; a cluster-scoped object with one is invalid.
 * - resourceVersion is one global counter, bumped once per effective write (a no-op write keeps it).
 * - Watch without resourceVersion starts at the store's version when watch() is called and delivers
 *   only later events (no synthetic ADDED for existing objects); "0" is not special.
 * - Durability (with `path`): a write resolves only after a file write containing it has completed
 *   (fsync + atomic rename), so anything acknowledged survives a crash. Concurrent writes share one
 *   file write (group commit). Reads (get, list) and watch events show a change only once it is
 *   durable, so no reader or controller acts on a change a crash could still lose. Writes are checked
 *   against the newest state, durable or not. If a file write fails, every change not yet on disk is
 *   undone and each of their calls rejects with UNAVAILABLE ("the state could not be saved"): nothing
 *   is published, nothing half-applied stays behind.
 * - Every write rewrites the whole file; at 10 000 objects one write costs ~25 ms, which concurrent
 *   callers share but a strictly serial caller pays each time.
 */
import type { Resource } from '../../api/index.js';
import { createGroupCommit, type GroupCommit } from '../../durable/index.js';
import { ZvmError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { keyOf, keyString, type ListOptions, type ListResult, type ObjectKey, type StateStore, type WatchEvent, type WatchOptions } from '../port.js';
import { copyJson } from '../common/json.js';
import { compareKeyStrings } from '../common/list-order.js';
import { definitionOf, normalizeKey } from '../common/object-rules.js';
import { matchesLabels, matchesNamespace } from '../common/selector.js';
import { watchFrom } from '../common/watch-fanout.js';
import { createWriteVerbs } from '../common/write-verbs.js';
import { loadStateFile, serializeState, writeStateFile } from './state-file.js';
import { bucketOf, createUnsavedChanges, type UnsavedChange } from './unsaved-changes.js';
import { createWatchHub, type StoredEvent } from './watch-hub.js';

export interface EmbeddedStoreOptions {
  /** state file; without it the store lives in memory only. */
  path?: string;
  log?: Logger;
  /** how many events watches can resume from (default 10 000). */
  historyLimit?: number;
}

export const DEFAULT_HISTORY_LIMIT = 10_000;

export function createEmbeddedStore(options: EmbeddedStoreOptions = {}): StateStore {
  const log = (options.log ?? silentLogger()).child({ component: 'embedded-store' });
  const byKind = new Map<string, Map<string, Resource>>();
  let counter = 0;
  const loaded = options.path ? loadStateFile(options.path, log) : undefined;
  for (const obj of loaded?.objects ?? []) {
    bucket(obj.kind).set(keyString(keyOf(obj)), obj);
    counter = Math.max(counter, Number(obj.metadata.resourceVersion) || 0);
  }
  counter = Math.max(counter, loaded?.resourceVersion ?? 0);
  if (loaded) log.info({ objects: loaded.objects.length, resourceVersion: counter }, 'state loaded');

  const hub = createWatchHub({ historyLimit: options.historyLimit ?? DEFAULT_HISTORY_LIMIT, startRv: counter });
  const path = options.path;
  /** what readers see: only durable changes (equal to byKind whenever nothing is in flight). */
  const visible = new Map<string, Map<string, Resource>>();
  for (const [kind, objects] of byKind) visible.set(kind, new Map(objects));
  let visibleRv = counter;
  const unsaved = createUnsavedChanges({ byKind: bucket, publish });
  const group: GroupCommit | undefined = path
    ? createGroupCommit({
      log,
      async write() {
        const rv = counter;
        try {
          await writeStateFile(path, serializeState(counter, allObjects()), log);
        } catch (err) {
          unsaved.rollBack(new ZvmError('UNAVAILABLE', `the state could not be saved (${(err as Error).message}); the change was not applied`, { cause: err }));
          throw err;
        }
        unsaved.publishThrough(rv);
      },
    })
    : undefined;
  let closing: Promise<void> | undefined;

  function bucket(kind: string): Map<string, Resource> {
    return bucketOf(byKind, kind);
  }

  function* allObjects(): Iterable<Resource> {
    for (const objects of byKind.values()) yield* objects.values();
  }

  function assertOpen(): void {
    if (closing) throw new ZvmError('UNAVAILABLE', 'the embedded store is closed');
  }

  /** A durable change reaches readers and watchers together. */
  function publish(event: StoredEvent): void {
    const key = keyString(keyOf(event.object));
    if (event.type === 'DELETED') bucketOf(visible, event.kind).delete(key);
    else bucketOf(visible, event.kind).set(key, event.object);
    visibleRv = event.rv;
    hub.publish(event);
  }

  /** Stores (or removes) the object under a new resourceVersion; its event waits until the change is durable. */
  function commit(type: StoredEvent['type'], next: Resource, previous?: Resource): UnsavedChange {
    counter += 1;
    const object: Resource = { ...next, metadata: { ...next.metadata, resourceVersion: String(counter) } };
    const key = keyString(keyOf(object));
    const before = bucket(object.kind).get(key);
    if (type === 'DELETED') bucket(object.kind).delete(key);
    else bucket(object.kind).set(key, object);
    const change: UnsavedChange = { event: { rv: counter, kind: object.kind, type, object, previous }, before };
    if (group) unsaved.add(change);
    else publish(change.event);
    return change;
  }

  /** Resolves once the change is on disk (immediately in memory mode); rejects if it could not be saved. */
  async function durable<T extends Resource>(change: UnsavedChange): Promise<T> {
    await group?.flush();
    if (change.failure) throw change.failure;
    return copyJson(change.event.object) as T;
  }

  /** A no-op write answers with the current state, so it must wait until that state is durable too. */
  async function settled(kind: string, key: ObjectKey): Promise<Resource | undefined> {
    if (group && unsaved.size() > 0) await group.flush();
    return bucketOf(visible, kind).get(keyString(normalizeKey(kind, key)));
  }

  const writes = createWriteVerbs({
    assertOpen,
    find: (kind, key) => bucket(kind).get(keyString(normalizeKey(kind, key))),
    commit: (type, next, previous) => durable(commit(type, next, previous)),
    async unchanged<T extends Resource>(stored: Resource) {
      return copyJson((await settled(stored.kind, keyOf(stored))) ?? stored) as T;
    },
  });

  return {
    async get<T extends Resource>(kind: string, key: ObjectKey) {
      const stored = bucketOf(visible, definitionOf(kind).kind).get(keyString(normalizeKey(kind, key)));
      return stored ? (copyJson(stored) as T) : undefined;
    },

    async list<T extends Resource>(kind: string, opts: ListOptions = {}): Promise<ListResult<T>> {
      definitionOf(kind);
      const items = [...bucketOf(visible, kind).entries()]
        .filter(([, obj]) => matchesNamespace(obj, opts.namespace) && matchesLabels(obj, opts.labelSelector))
        .sort(([a], [b]) => compareKeyStrings(a, b))
        .map(([, obj]) => copyJson(obj) as T);
      return { items, resourceVersion: String(visibleRv) };
    },

    ...writes,

    watch<T extends Resource>(kind: string, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
      // Without a resourceVersion the watch starts after what readers see now.
      return watchFrom<T>(kind, opts, visibleRv, hub.stream);
    },

    close() {
      closing ??= (async () => {
        try {
          await group?.flush();
        } finally {
          hub.close();
          log.info({ resourceVersion: counter }, 'embedded store closed');
        }
      })();
      return closing;
    },
  };
}
