/**
 * A Kubernetes watch as an async iterable, over client-node's Watch (a streaming GET with
 * `watch=true`). The iterator:
 * - yields ADDED / MODIFIED / DELETED / BOOKMARK (bookmarks are asked for: they advance the caller's
 *   resourceVersion without changes);
 * - throws GoneError for an expired resourceVersion (an ERROR event with code 410, or an HTTP 410),
 *   and other typed errors for other failures (an unreachable apiserver is UNAVAILABLE);
 * - simply ends when the server ends the stream (its timeoutSeconds, an apiserver shutdown), when the
 *   signal aborts, or after a client-side bound a little longer than timeoutSeconds, since client-node
 *   has no timeout of its own and a silently dead connection would otherwise stall forever.
 * Restarting, and re-listing after GoneError, is the caller's business (src/runtime/informer.ts).
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Resource } from '../../api/index.js';
import type { Logger } from '../../log.js';
import type { WatchEvent, WatchEventType } from '../port.js';
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
  // client-node calls done(null) when the server closes the stream, done(err) on a failure or our abort.
  const onDone = (err: unknown): void => {
    if (err && !req.signal.aborted && !queue.closed) queue.fail(toStoreError(err, req.what, 'read'));
    else queue.end();
  };
  const query: Record<string, string | number | boolean> = {
    allowWatchBookmarks: true,
    resourceVersion: req.resourceVersion,
    timeoutSeconds: req.timeoutSeconds,
  };
  if (req.labelSelector) query.labelSelector = req.labelSelector;

  let controller: AbortController | undefined;
  new Watch(kubeconfig)
    .watch(req.path, query, onEvent, onDone)
    .then((c) => {
      controller = c;
      // The iterator may have finished while the request was still being answered.
      if (queue.closed) c.abort();
    })
    .catch((err: unknown) => queue.fail(toStoreError(err, req.what, 'read')));

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
    controller?.abort();
  }
}
