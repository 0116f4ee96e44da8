import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import type { Resource } from '../api/index.js';
import { NotFoundError, ZvmError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { toStoreError } from '../store/kube/index.js';
import { pooled } from '../store/kube/connection-pool.js';
import { kubeRequest, MERGE_PATCH } from '../store/kube/http.js';
import type { EventRecorder, EventType } from './events.js';

/**
 * An EventRecorder writing core/v1 Events, as client-go's recorder does: `event()` only queues, one
 * writer drains the queue, so a slow or failing apiserver never blocks a reconcile. Repeats of an
 * identical event (same object, type, reason, message) become a count bump on the existing Event;
 * repeats that arrive while the first is still queued are merged into it. A full queue drops new
 * events (counted, logged): events are advisory and must not grow memory without bound.
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
  /** events remembered for aggregation; default 4096. */
  cacheLimit?: number;
  /** bound on each write; default 10 s. */
  requestTimeoutMs?: number;
  log?: Logger;
  now?: () => Date;
}

export interface KubeEventRecorder extends EventRecorder {
  /** Resolves once everything queued so far has been written (or has failed). */
  flush(): Promise<void>;
  /** Events dropped because the queue was full. */
  dropped(): number;
  /** Stops accepting events and waits up to graceMs for the queue to drain. */
  close(graceMs?: number): Promise<void>;
}

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

const timestamp = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

export function createKubeEventRecorder(o: KubeEventRecorderOptions): KubeEventRecorder {
  const log = (o.log ?? silentLogger()).child({ component: 'events' });
  const component = o.component ?? 'zvm-operator';
  const instance = o.instance ?? hostname();
  const queueLimit = Math.max(1, o.queueLimit ?? 1000);
  const cacheLimit = Math.max(1, o.cacheLimit ?? 4096);
  const timeoutMs = o.requestTimeoutMs ?? 10_000;
  const now = o.now ?? (() => new Date());
  const queue = new Map<string, Pending>();
  const written = new Map<string, Written>();
  let draining: Promise<void> | undefined;
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

  async function write(p: Pending): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs);
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
    const name = `${p.obj.metadata.name}.${Date.parse(p.first).toString(16)}${randomBytes(3).toString('hex')}`;
    await o.sink.create(namespace, body(p, name, namespace), signal);
    remember(p.key, { namespace, name, count: p.repeats, first: p.first });
  }

  async function drain(): Promise<void> {
    // Bounded by what is queued: each turn removes one entry, and new ones count against the limit.
    while (queue.size > 0) {
      const [key, next] = queue.entries().next().value as [string, Pending];
      queue.delete(key);
      try {
        await write(next);
      } catch (err) {
        log.warn({ err, kind: next.obj.kind, name: next.obj.metadata.name, reason: next.reason }, 'could not write the Event');
      }
    }
  }

  function kick(): void {
    if (draining) return;
    draining = drain().finally(() => {
      draining = undefined;
      if (queue.size > 0 && !closed) kick();
    });
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
        if (droppedCount === 1 || droppedCount % 100 === 0) log.warn({ dropped: droppedCount, reason }, 'event queue full; dropping events');
        return;
      } else {
        queue.set(key, { key, obj, type, reason, message, repeats: 1, first: at, last: at });
      }
      kick();
    },
    async flush() {
      for (let round = 0; round < 1000 && draining; round += 1) await draining;
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
        await kubeRequest(kc, { method: 'POST', path: events(namespace), body: event, signal });
      } catch (err) {
        throw wrap(err, `Event ${namespace}/${event.metadata?.name}`, 'create');
      }
    },
    async patch(namespace, name, patch, signal) {
      try {
        await kubeRequest(kc, { method: 'PATCH', path: `${events(namespace)}/${encodeURIComponent(name)}`, body: patch, contentType: MERGE_PATCH, signal });
      } catch (err) {
        throw wrap(err, `Event ${namespace}/${name}`, 'write');
      }
    },
  };
}
