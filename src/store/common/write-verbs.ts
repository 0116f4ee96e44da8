/**
 * The write verbs of the stores that enforce the port's rules themselves (embedded and SQLite): read the
 * current object, check the precondition, prepare the change (object-rules.ts), hand it to the backend.
 * The backends differ only in where objects live and when a change is durable.
 */
import { randomUUID } from 'node:crypto';
import type { Resource } from '../../api/index.js';
import { AlreadyExistsError, InvalidInputError, NotFoundError } from '../../errors.js';
import { keyOf, keyString, type ChangeType, type MergePatch, type ObjectKey, type StateStore } from '../port.js';
import { applyMergePatch, isJsonObject } from './json.js';
import { checkPrecondition, definitionOf, definitionOfObject, isReleased, prepareCreate, prepareStatusUpdate, prepareUpdate, rfc3339, type UpdateOutcome } from './object-rules.js';

export interface WriteBackend {
  /** throws UNAVAILABLE once the store is closing */
  assertOpen(): void;
  /** the object as writes see it (including changes not yet durable) */
  find(kind: string, key: ObjectKey): Resource | undefined;
  /** stores (or removes) `next` under a new resourceVersion; resolves with the stored object once durable */
  commit<T extends Resource>(type: ChangeType, next: Resource, previous?: Resource): Promise<T>;
  /** the answer of a write that changed nothing: the current state, once that state is durable */
  unchanged<T extends Resource>(current: Resource): Promise<T>;
}

export type WriteVerbs = Pick<StateStore, 'create' | 'update' | 'patch' | 'updateStatus' | 'patchStatus' | 'delete'>;

function patchObject(patch: MergePatch, what: string): MergePatch {
  if (!isJsonObject(patch)) throw new InvalidInputError(`${what} must be a JSON object`);
  return patch;
}

/** A resourceVersion precondition may also travel in the patch's own metadata, as with the apiserver. */
function versionInPatch(patch: MergePatch): string | undefined {
  const meta = patch.metadata;
  return isJsonObject(meta) && typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined;
}

export function createWriteVerbs(backend: WriteBackend): WriteVerbs {
  function mustGet(kind: string, key: ObjectKey): Resource {
    const found = backend.find(kind, key);
    if (!found) throw new NotFoundError(`${kind} ${keyString(key)} not found`);
    return found;
  }

  function loaded(kind: string, key: ObjectKey): Resource {
    backend.assertOpen();
    return mustGet(definitionOf(kind).kind, key);
  }

  /** Loads the current object for a write and checks the caller's precondition. */
  function current(kind: string, key: ObjectKey, resourceVersion: string | undefined): Resource {
    const stored = loaded(kind, key);
    checkPrecondition(stored, resourceVersion);
    return stored;
  }

  function applyOutcome<T extends Resource>(stored: Resource, outcome: UpdateOutcome): Promise<T> {
    if (!outcome.changed) return backend.unchanged<T>(stored);
    return backend.commit<T>(isReleased(outcome.next) ? 'DELETED' : 'MODIFIED', outcome.next, stored);
  }

  return {
    async create<T extends Resource>(obj: T) {
      backend.assertOpen();
      const next = prepareCreate(obj, { uid: randomUUID(), now: new Date() });
      if (backend.find(next.kind, keyOf(next))) throw new AlreadyExistsError(`${next.kind} ${keyString(keyOf(next))} already exists`);
      return backend.commit<T>('ADDED', next);
    },

    async update<T extends Resource>(obj: T) {
      const stored = current(definitionOfObject(obj).kind, keyOf(obj), obj.metadata.resourceVersion);
      return applyOutcome<T>(stored, prepareUpdate(stored, obj));
    },

    async patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, opts: { resourceVersion?: string } = {}) {
      const stored = loaded(kind, key);
      checkPrecondition(stored, opts.resourceVersion ?? versionInPatch(patchObject(patch, 'a patch')));
      return applyOutcome<T>(stored, prepareUpdate(stored, applyMergePatch(stored, patch) as Resource));
    },

    async updateStatus<T extends Resource>(obj: T) {
      const stored = current(definitionOfObject(obj).kind, keyOf(obj), obj.metadata.resourceVersion);
      return applyOutcome<T>(stored, prepareStatusUpdate(stored, obj.status));
    },

    async patchStatus<T extends Resource>(kind: string, key: ObjectKey, status: MergePatch, opts: { resourceVersion?: string } = {}) {
      const stored = current(kind, key, opts.resourceVersion);
      const next = applyMergePatch(stored.status ?? {}, patchObject(status, 'a status patch'));
      return applyOutcome<T>(stored, prepareStatusUpdate(stored, next));
    },

    async delete(kind: string, key: ObjectKey, opts: { resourceVersion?: string } = {}) {
      const stored = current(kind, key, opts.resourceVersion);
      if ((stored.metadata.finalizers ?? []).length === 0) {
        await backend.commit('DELETED', stored);
        return;
      }
      // Finalizers hold the object: mark it once; its owners remove their finalizers when done.
      if (stored.metadata.deletionTimestamp) {
        await backend.unchanged(stored);
        return;
      }
      const marked: Resource = { ...stored, metadata: { ...stored.metadata, deletionTimestamp: rfc3339(new Date()) } };
      await backend.commit('MODIFIED', marked, stored);
    },
  };
}
