import type { Resource } from '../api/index.js';
import { keyOf, type ObjectKey } from '../store/port.js';
import type { InformerHandler } from './informer.js';
import type { KeyMapper } from './result.js';

/** The part of a queue an event handler needs. */
export interface KeySink {
  add(key: ObjectKey): void;
}

/**
 * Which events deserve a reconcile (controller-runtime's predicate.Funcs); an absent method passes
 * every event. An informer resync delivers an update whose old and new object are the same one.
 */
export interface EventPredicate<T extends Resource = Resource> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/** Every event on an object that passes the predicate enqueues that object's own key (the primary kind of a controller). */
export function enqueueForObject(sink: KeySink, predicate: EventPredicate = {}): InformerHandler {
  return {
    onAdd: (obj) => {
      if (predicate.create?.(obj) ?? true) sink.add(keyOf(obj));
    },
    onUpdate: (old, obj) => {
      if (predicate.update?.(old, obj) ?? true) sink.add(keyOf(obj));
    },
    onDelete: (obj) => {
      if (predicate.delete?.(obj) ?? true) sink.add(keyOf(obj));
    },
  };
}

/**
 * Events on a related object enqueue the keys a mapper derives from it. An update maps the old and the
 * new object: a label or reference that moved must wake both the old owner and the new one.
 */
export function enqueueMapped(sink: KeySink, map: KeyMapper, predicate: EventPredicate = {}): InformerHandler {
  const addAll = (obj: Resource): void => {
    for (const key of map(obj)) sink.add(key);
  };
  return {
    onAdd: (obj) => {
      if (predicate.create?.(obj) ?? true) addAll(obj);
    },
    onUpdate: (old, obj) => {
      if (!(predicate.update?.(old, obj) ?? true)) return;
      addAll(old);
      addAll(obj);
    },
    onDelete: (obj) => {
      if (predicate.delete?.(obj) ?? true) addAll(obj);
    },
  };
}
