import { hostname } from 'node:os';
import type { CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Resource } from '../api/index.js';
import { NotFoundError, ZvmError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { toStoreError } from '../store/kube/index.js';
import { pooled } from '../store/kube/connection-pool.js';
import { kubeRequest, MERGE_PATCH } from '../store/kube/http.js';
import { withBound } from '../util/time-bound.js';
import { registerEventMetrics } from './event-metrics.js';
import type { EventRecorder, EventType } from './events.js';

/**
 * An EventRecorder writing core/v1 Events, as client-go's recorder does: `event()` only queues, and a
 * few writers drain the queue over the shared keep-alive agents, so a slow or failing apiserver never
 * blocks a reconcile and a burst of distinct objects does not outgrow the queue. Repeats of an identical
 * event (same object, type, reason, message) become a count bump on the existing Event; repeats that
 * arrive while the first is still queued are merged into it. Writes of one event are never concurrent
 * (a key in flight is skipped until its write ends), so the counts add up. A full queue drops new events
 * (counted in zvm_events_dropped_total, logged): events are advisory and must not grow memory without bound.
 */
export interface EventSink {
  create(namespace: string, event: CoreV1Event, signal: AbortSignal): Promise<void>;
  /** NotFoundError when the Event has gone (events expire after an hour by default). */
  patch(namespace: string, name: string, patch: { count: number; lastTimestamp: string }, signal: AbortSignal): Promise<void>;
}

export interface KubeEventRecorderOptions {
  sink: EventSink;
  /** source.component and reportingComponent; default zvm-operator. */
  component?: string;
  /** source.host and reportingInstance; default the host name. */
  instance?: string;
  /** distinct events waiting to be written; default 1000. */
  queueLimit?: number;
  /** writes in flight at once; default 4. */
  writers?: number;
  /** events remembered for aggregation; default 4096. */
  cacheLimit?: number;
  /** bound on each write; default 10 s. */
  requestTimeoutMs?: number;
  /** counts dropped events as zvm_events_dropped_total */
  registry?: Registry;
  log?: Logger;
  now?: () => Date;
}

export interface KubeEventRecorder extends EventRecorder {
  /** Resolves once the queue is empty and no write is in flight. */
  flush(): Promise<void>;
  /** Events dropped because the queue was full. */
  dropped(): number;
  /** Stops accepting events and waits up to graceMs for the queue to drain. */
  close(graceMs?: number): Promise<void>;
}

export { registerEventMetrics } from './event-metrics.js';

export const DEFAULT_EVENT_WRITERS = 4;


interface Pending {
  key: string;
  obj: Resource;
  type: EventType;
  reason: string;
  message: string;
  /** occurrences merged into this write */
  repeats: number;
  first: string;
  last: string;
}

interface Written {
  namespace: string;
  name: string;
  count: number;
  first: string;
}

/** Six hex digits that keep two Events named at the same millisecond apart; not a secret, so no crypto call per Event. */
const uniqueSuffix = (): string => Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
const timestamp = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

export function createKubeEventRecorder(o: KubeEventRecorderOptions): KubeEventRecorder {
  const log = (o.log ?? silentLogger()).child({ component: 'events' });
  const component = o.component ?? 'zvm-operator';
  const instance = o.instance ?? hostname();
  const queueLimit = Math.max(1, o.queueLimit ?? 1000);
  const writers = Math.max(1, o.writers ?? DEFAULT_EVENT_WRITERS);
  const cacheLimit = Math.max(1, o.cacheLimit ?? 4096);
  const timeoutMs = o.requestTimeoutMs ?? 10_000;
  const now = o.now ?? (() => new Date());
  const droppedMetric = o.registry ? registerEventMetrics(o.registry) : undefined;
  const queue = new Map<string, Pending>();
  /** keys being written: their queued repeats wait, so that two writes of one Event never race */
  const inFlight = new Set<string>();
  const written = new Map<string, Written>();
  let idle: Array<() => void> = [];
  let droppedCount = 0;
  let closed = false;

  function remember(key: string, entry: Written): void {
    written.delete(key);
    written.set(key, entry);
    if (written.size > cacheLimit) written.delete(written.keys().next().value as string);
  }

  function body(p: Pending, name: string, namespace: string): CoreV1Event {
    const m = p.obj.metadata;
    return {
      metadata: { name, namespace },
      involvedObject: { apiVersion: p.obj.apiVersion, kind: p.obj.kind, name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion },
      type: p.type,
      reason: p.reason,
      message: p.message,
      count: p.repeats,
      firstTimestamp: p.first as unknown as Date,
      lastTimestamp: p.last as unknown as Date,
      source: { component, host: instance },
      reportingComponent: component,
      reportingInstance: instance,
    };
  }

  /** Bounded by a timer cleared when the write is done (util/time-bound.ts), not an AbortSignal.timeout that fires later for nothing. */
  async function write(p: Pending, signal: AbortSignal): Promise<void> {
    const previous = written.get(p.key);
    if (previous) {
      const count = previous.count + p.repeats;
      try {
        await o.sink.patch(previous.namespace, previous.name, { count, lastTimestamp: p.last }, signal);
        remember(p.key, { ...previous, count });
        return;
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        written.delete(p.key); // expired: start a new Event
      }
    }
    // Cluster-scoped objects' events live in `default`, as client-go puts them.
    const namespace = p.obj.metadata.namespace ?? 'default';
    const name = `${p.obj.metadata.name}.${Date.parse(p.first).toString(16)}${uniqueSuffix()}`;
    await o.sink.create(namespace, body(p, name, namespace), signal);
    remember(p.key, { namespace, name, count: p.repeats, first: p.first });
  }

  /** The oldest queued event whose key is not being written; skips at most `writers` entries. */
  function next(): Pending | undefined {
    for (const [key, p] of queue) {
      if (inFlight.has(key)) continue;
      queue.delete(key);
      return p;
    }
    return undefined;
  }

  async function writeOne(p: Pending): Promise<void> {
    try {
      await withBound(timeoutMs, (signal) => write(p, signal));
    } catch (err) {
      log.warn({ err, kind: p.obj.kind, name: p.obj.metadata.name, reason: p.reason }, 'could not write the Event');
    }
  }

  /** Starts writes up to the bound; each one ending starts the next (also after close: the queue only shrinks). */
  function pump(): void {
    while (inFlight.size < writers) {
      const p = next();
      if (!p) break;
      inFlight.add(p.key);
      void writeOne(p).finally(() => {
        inFlight.delete(p.key);
        pump();
      });
    }
    if (inFlight.size === 0 && queue.size === 0) {
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  return {
    event(obj, type, reason, message) {
      if (closed) return;
      const m = obj.metadata;
      const key = [obj.kind, m.namespace ?? '', m.name, m.uid ?? '', type, reason, message].join('\u0000');
      const at = timestamp(now());
      const queued = queue.get(key);
      if (queued) {
        queued.repeats += 1;
        queued.last = at;
      } else if (queue.size >= queueLimit) {
        droppedCount += 1;
        droppedMetric?.inc();
        if (droppedCount === 1 || droppedCount % 100 === 0) log.warn({ dropped: droppedCount, reason }, 'event queue full; dropping events');
        return;
      } else {
        queue.set(key, { key, obj, type, reason, message, repeats: 1, first: at, last: at });
      }
      pump();
    },
    flush() {
      if (inFlight.size === 0 && queue.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    dropped: () => droppedCount,
    async close(graceMs = 5_000) {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); });
      await Promise.race([this.flush(), expired]);
      clearTimeout(timer);
    },
  };
}

/** The EventSink over the Kubernetes API (core/v1 Events; the patch is a merge patch), on the shared agents. */
export function createKubeEventSink(kubeconfig: KubeConfig): EventSink {
  const kc = pooled(kubeconfig);
  const events = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  const wrap = (err: unknown, what: string, op: 'create' | 'write'): ZvmError => toStoreError(err, what, op);
  return {
    async create(namespace, event, signal) {
      try {
        await kubeRequest(kc, { method: 'POST', path: events(namespace), body: event, signal, discardAnswer: true });
      } catch (err) {
        throw wrap(err, `Event ${namespace}/${event.metadata?.name}`, 'create');
      }
    },
    async patch(namespace, name, patch, signal) {
      try {
        await kubeRequest(kc, { method: 'PATCH', path: `${events(namespace)}/${encodeURIComponent(name)}`, body: patch, contentType: MERGE_PATCH, signal, discardAnswer: true });
      } catch (err) {
        throw wrap(err, `Event ${namespace}/${name}`, 'write');
      }
    },
  };
}
