/**
 * A Kubernetes watch as an async iterable: a streaming GET with `watch=true` on the process's watch
 * agent (http.ts), read line by line. (client-node's Watch, used before, piped every answer through
 * node-fetch, a PassThrough and readline: about a tenth of a controller's CPU under a create burst.)
 * The iterator:
 * - yields ADDED / MODIFIED / DELETED / BOOKMARK (bookmarks are asked for: they advance the caller's
 *   resourceVersion without changes);
 * - throws GoneError for an expired resourceVersion (an ERROR event with code 410, or an HTTP 410),
 *   and other typed errors for other failures (an unreachable apiserver is UNAVAILABLE);
 * - simply ends when the server ends the stream (its timeoutSeconds, an apiserver shutdown), when the
 *   signal aborts, or after a client-side bound a little longer than timeoutSeconds, since a silently
 *   dead connection would otherwise stall forever.
 * Restarting, and re-listing after GoneError, is the caller's business (src/runtime/informer.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Resource } from '../../api/index.js';
import type { Logger } from '../../log.js';
import type { WatchEvent, WatchEventType } from '../port.js';
import { kubeStream, type StreamSink } from './http.js';
import { errorFromFailure, toStoreError, type KubeStatus } from './kube-errors.js';
import { fromServer } from './objects.js';

export interface WatchRequest {
  /** API path of the collection, e.g. /apis/zvm.dev/v1beta1/namespaces/ns/zguests. */
  path: string;
  resourceVersion: string;
  labelSelector?: string;
  /** asks the server to end the watch after this long (it then just ends, and the caller restarts). */
  timeoutSeconds: number;
  signal: AbortSignal;
  /** names the watched collection in errors and logs. */
  what: string;
}

/** How much longer than timeoutSeconds the client waits before it gives up on a silent stream. */
export const CLIENT_GRACE_MS = 30_000;

const EVENT_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

type Item<T extends Resource> = { event: WatchEvent<T> } | { error: Error } | { end: true };

/** An unbounded hand-over from the watch callbacks to the iterator; after the first end or error it ignores input. */
function createQueue<T extends Resource>() {
  const items: Item<T>[] = [];
  let waiter: (() => void) | undefined;
  let closed = false;
  const put = (item: Item<T>): void => {
    if (closed) return;
    if (!('event' in item)) closed = true;
    items.push(item);
    waiter?.();
    waiter = undefined;
  };
  return {
    push: (event: WatchEvent<T>) => put({ event }),
    fail: (error: Error) => put({ error }),
    end: () => put({ end: true }),
    /** ends at once, dropping events not yet taken (the caller aborted: it wants nothing more). */
    stop: () => {
      items.length = 0;
      closed = false;
      put({ end: true });
    },
    get closed() {
      return closed;
    },
    async take(): Promise<Item<T>> {
      while (items.length === 0) await new Promise<void>((resolve) => (waiter = resolve));
      return items.shift() as Item<T>;
    },
  };
}

export async function* watchStream<T extends Resource>(kubeconfig: KubeConfig, req: WatchRequest, log: Logger): AsyncGenerator<WatchEvent<T>> {
  const queue = createQueue<T>();
  const onAbort = (): void => queue.stop();
  req.signal.addEventListener('abort', onAbort, { once: true });
  if (req.signal.aborted) queue.stop();
  const bound = setTimeout(() => {
    log.debug({ what: req.what }, 'watch outlived its timeout; ending it');
    queue.end();
  }, req.timeoutSeconds * 1000 + CLIENT_GRACE_MS);

  const onEvent = (type: string, object: unknown): void => {
    if (EVENT_TYPES.has(type)) queue.push({ type: type as WatchEventType, object: fromServer<T>(object) });
    else if (type === 'ERROR') {
      const status = (object ?? {}) as KubeStatus;
      queue.fail(errorFromFailure({ code: status.code ?? 500, status }, req.what, 'read'));
    } else log.debug({ what: req.what, type }, 'ignoring unknown watch event type');
  };
  const query: Record<string, string | number> = {
    watch: 'true',
    allowWatchBookmarks: 'true',
    resourceVersion: req.resourceVersion,
    timeoutSeconds: req.timeoutSeconds,
  };
  if (req.labelSelector) query.labelSelector = req.labelSelector;

  // null: the server ended the stream; else a failure, unless it is our own abort
  const onDone = (err: unknown): void => {
    if (err && !req.signal.aborted && !queue.closed) queue.fail(toStoreError(err, req.what, 'read'));
    else queue.end();
  };
  const stream = new AbortController();
  kubeStream(kubeconfig, { method: 'GET', path: req.path, query, signal: stream.signal }, lines((line) => onLine(line, onEvent, log, req.what), onDone)).catch(onDone);

  try {
    for (;;) {
      const item = await queue.take();
      if ('event' in item) yield item.event;
      else if ('error' in item) throw item.error;
      else return;
    }
  } finally {
    clearTimeout(bound);
    req.signal.removeEventListener('abort', onAbort);
    queue.end();
    stream.abort();
  }
}

/** One watch line: a JSON event; a line that does not parse is skipped (as client-node did). */
function onLine(line: string, onEvent: (type: string, object: unknown) => void, log: Logger, what: string): void {
  let event: { type?: unknown; object?: unknown };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    log.debug({ what }, 'ignoring a watch line that is no JSON');
    return;
  }
  onEvent(String(event.type), event.object);
}

/** A sink calling `onLine` for each non-empty line of the body, then `done` once: with null when the server ended it, else with the failure. */
function lines(onLine: (line: string) => void, done: (err: unknown) => void): StreamSink {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  return {
    data(bytes) {
      const split = (partial + decoder.write(bytes)).split('\n');
      partial = split.pop() ?? '';
      for (const line of split) if (line.trim() !== '') onLine(line);
    },
    done(err) {
      if (err === null) {
        const last = partial + decoder.end();
        if (last.trim() !== '') onLine(last);
      }
      done(err);
    },
  };
}
