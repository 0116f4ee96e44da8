import type { Resource } from '../api/index.js';
import { keyOf, type ObjectKey } from '../store/port.js';
import type { InformerHandler } from './informer.js';
import type { KeyMapper } from './result.js';

/** The part of a queue an event handler needs. */
export interface KeySink {
  add(key: ObjectKey): void;
}

/** Every event on an object enqueues that object's own key (the primary kind of a controller). */
export function enqueueForObject(sink: KeySink): InformerHandler {
  return {
    onAdd: (obj) => sink.add(keyOf(obj)),
    onUpdate: (_old, obj) => sink.add(keyOf(obj)),
    onDelete: (obj) => sink.add(keyOf(obj)),
  };
}

/**
 * Events on a related object enqueue the keys a mapper derives from it. An update maps the old and the
 * new object: a label or reference that moved must wake both the old owner and the new one.
 */
export function enqueueMapped(sink: KeySink, map: KeyMapper): InformerHandler {
  const addAll = (obj: Resource): void => {
    for (const key of map(obj)) sink.add(key);
  };
  return {
    onAdd: addAll,
    onUpdate: (old, obj) => {
      addAll(old);
      addAll(obj);
    },
    onDelete: addAll,
  };
}
