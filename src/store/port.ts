import type { Resource } from '../api/index.js';

/** namespace is absent for cluster-scoped kinds. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** What a write does to the stored object: the watch event types other than BOOKMARK. */
export type ChangeType = Exclude<WatchEventType, 'BOOKMARK'>;

export interface WatchEvent<T extends Resource = Resource> {
  type: WatchEventType;
  object: T;
}

export interface ListResult<T extends Resource = Resource> {
  items: T[];
  /** the store's resourceVersion at the time of the list; pass it to watch to miss nothing. */
  resourceVersion: string;
}

/**
 * Label selector, one requirement per label: a string selects that exact value (`key=value`); null
 * selects objects that do NOT carry the label (`!key`); `{ notIn }` selects objects that carry it with
 * any other value (`key,key notin (a,b)`).
 */
export type LabelSelector = Record<string, string | null | { notIn: readonly string[] }>;

export interface ListOptions {
  namespace?: string;
  labelSelector?: LabelSelector;
}

export interface WatchOptions extends ListOptions {
  /** deliver every change after this version; an expired version ends the watch with GoneError. */
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** RFC 7386 merge patch; `null` deletes a field. */
export type MergePatch = Record<string, unknown>;

/**
 * The state port (docs/architecture.md §2): Kubernetes semantics whatever the adapter.
 * - create assigns uid, resourceVersion, generation 1 and creationTimestamp; an existing key → AlreadyExistsError.
 * - update/patch with a stale metadata.resourceVersion → ConflictError; a spec change bumps generation.
 * - update/patch ignore status; status changes only through updateStatus/patchStatus.
 * - delete of an object with finalizers only sets deletionTimestamp; removing the last finalizer
 *   of an object being deleted removes it.
 * - every method that takes a kind validates objects of that kind (InvalidSpecError).
 */
export interface StateStore {
  get<T extends Resource>(kind: string, key: ObjectKey): Promise<T | undefined>;
  list<T extends Resource>(kind: string, options?: ListOptions): Promise<ListResult<T>>;
  create<T extends Resource>(obj: T): Promise<T>;
  /** Replaces metadata (labels, annotations, finalizers) and spec; requires a current resourceVersion when given. */
  update<T extends Resource>(obj: T): Promise<T>;
  patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, options?: { resourceVersion?: string }): Promise<T>;
  updateStatus<T extends Resource>(obj: T): Promise<T>;
  patchStatus<T extends Resource>(kind: string, key: ObjectKey, status: MergePatch, options?: { resourceVersion?: string }): Promise<T>;
  delete(kind: string, key: ObjectKey, options?: { resourceVersion?: string }): Promise<void>;
  /**
   * The field manager that wrote the field at `path` (e.g. ['metadata', 'annotations', 'zvm.dev/approved-plan']),
   * where the store records field managers (the apiserver's managedFields); absent where it does not.
   */
  fieldManagerOf?(kind: string, key: ObjectKey, path: readonly string[]): Promise<string | undefined>;
  /** Async stream of changes; ends when the signal aborts. */
  watch<T extends Resource>(kind: string, options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  close(): Promise<void>;
}

export function keyOf(obj: Resource): ObjectKey {
  return obj.metadata.namespace ? { namespace: obj.metadata.namespace, name: obj.metadata.name } : { name: obj.metadata.name };
}

export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}
