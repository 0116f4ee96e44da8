/**
 * The embedded store's changes that are applied in memory but not yet on disk, oldest first. A file
 * write that succeeds publishes the ones it holds (readers and watchers see them from then on); a
 * write that fails undoes every one of them, newest first, so the state is again exactly what the
 * file holds, and marks each with the error its caller receives.
 */
import type { Resource } from '../../api/index.js';
import type { ZvmError } from '../../errors.js';
import { keyOf, keyString } from '../port.js';
import type { StoredEvent } from './watch-hub.js';

export interface UnsavedChange {
  event: StoredEvent;
  /** the stored object this change replaced or removed; undefined for a create. */
  before: Resource | undefined;
  /** set when the change was undone because the state could not be saved. */
  failure?: ZvmError;
}

export interface UnsavedChanges {
  add(change: UnsavedChange): void;
  size(): number;
  /** The file now holds every change up to `rv`: publish them. */
  publishThrough(rv: number): void;
  /** The file write failed: undo every unsaved change and fail its caller. */
  rollBack(failure: ZvmError): void;
}

export function bucketOf(byKind: Map<string, Map<string, Resource>>, kind: string): Map<string, Resource> {
  let objects = byKind.get(kind);
  if (!objects) {
    objects = new Map();
    byKind.set(kind, objects);
  }
  return objects;
}

export function createUnsavedChanges(deps: {
  /** the newest state's objects of a kind (what writes see) */
  byKind(kind: string): Map<string, Resource>;
  publish(event: StoredEvent): void;
}): UnsavedChanges {
  let changes: UnsavedChange[] = [];
  let head = 0;

  function compact(): void {
    if (head === changes.length) {
      changes = [];
      head = 0;
    }
  }

  return {
    add(change) {
      changes.push(change);
    },
    size() {
      return changes.length - head;
    },
    publishThrough(rv) {
      while (head < changes.length && changes[head].event.rv <= rv) {
        deps.publish(changes[head].event);
        head += 1;
      }
      compact();
    },
    rollBack(failure) {
      for (let i = changes.length - 1; i >= head; i -= 1) {
        const change = changes[i];
        const objects = deps.byKind(change.event.kind);
        const key = keyString(keyOf(change.event.object));
        if (change.before) objects.set(key, change.before);
        else objects.delete(key);
        change.failure = failure;
      }
      head = changes.length;
      compact();
    },
  };
}
