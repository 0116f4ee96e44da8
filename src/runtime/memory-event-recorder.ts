import type { Resource } from '../api/index.js';
import { silentLogger, type Logger } from '../log.js';
import { keyOf, keyString } from '../store/port.js';
import type { EventRecorder, EventType } from './events.js';

/**
 * The standalone-mode recorder: events live in memory and in the log. Like Kubernetes, a repeat of an
 * identical event (same object, type, reason and message) bumps a count and lastTimestamp instead of
 * adding a row; the oldest events are evicted beyond the limit.
 */
export interface RecordedEvent {
  involvedObject: { kind: string; namespace?: string; name: string; uid?: string };
  type: EventType;
  reason: string;
  message: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

export interface MemoryEventRecorder extends EventRecorder {
  /** The object's events, oldest first by their latest occurrence. */
  eventsFor(obj: Resource): RecordedEvent[];
  all(): RecordedEvent[];
}

export interface MemoryEventRecorderOptions {
  log?: Logger;
  /** distinct events kept; default 1000. */
  limit?: number;
  now?: () => Date;
}

// By kind and key, not uid: callers often look events up with an object they built from a key alone.
const objectId = (obj: Resource): string => `${obj.kind}/${keyString(keyOf(obj))}`;

export function createMemoryEventRecorder(options: MemoryEventRecorderOptions = {}): MemoryEventRecorder {
  const log = (options.log ?? silentLogger()).child({ component: 'events' });
  const limit = Math.max(1, options.limit ?? 1000);
  const now = options.now ?? (() => new Date());
  // Map order is recency order: a repeat is re-inserted at the end, eviction takes the first.
  const events = new Map<string, RecordedEvent>();
  const byObject = new Map<string, Set<string>>();

  function forget(eventId: string): void {
    events.delete(eventId);
    const objId = eventId.slice(0, eventId.indexOf('\u0000'));
    const ids = byObject.get(objId);
    ids?.delete(eventId);
    if (ids?.size === 0) byObject.delete(objId);
  }

  return {
    event(obj, type, reason, message) {
      const objId = objectId(obj);
      // the uid keeps a later object of the same name from counting into an earlier one's event
      const eventId = [objId, obj.metadata.uid ?? '', type, reason, message].join('\u0000');
      const at = now().toISOString();
      const existing = events.get(eventId);
      const event: RecordedEvent = existing
        ? { ...existing, count: existing.count + 1, lastTimestamp: at }
        : {
            involvedObject: { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name, uid: obj.metadata.uid },
            type,
            reason,
            message,
            count: 1,
            firstTimestamp: at,
            lastTimestamp: at,
          };
      events.delete(eventId);
      events.set(eventId, event);
      if (!byObject.has(objId)) byObject.set(objId, new Set());
      byObject.get(objId)?.add(eventId);
      const fields = { kind: obj.kind, key: keyString(keyOf(obj)), type, reason, count: event.count };
      if (type === 'Warning') log.warn(fields, message);
      else log.info(fields, message);
      if (events.size > limit) {
        forget(events.keys().next().value as string);
      }
    },
    eventsFor(obj) {
      const ids = byObject.get(objectId(obj));
      if (!ids) return [];
      const found = [...ids].map((id) => events.get(id)).filter((e): e is RecordedEvent => e !== undefined);
      return found.sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp));
    },
    all: () => [...events.values()],
  };
}
