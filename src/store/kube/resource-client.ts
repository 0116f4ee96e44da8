/**
 * One kind's endpoints (http.ts requests on the process's shared agents), with namespaced and cluster
 * scope behind one interface. Calls return the parsed answer and throw typed errors (kube-errors.ts).
 */
import type { KubeConfig, V1DeleteOptions } from '@kubernetes/client-node';
import { apiVersionOf, type KindDefinition, type Resource } from '../../api/index.js';
import { TimeoutError } from '../../errors.js';
import { withBound } from '../../util/time-bound.js';
import type { ObjectKey } from '../port.js';
import { toStoreError, type Operation } from './kube-errors.js';
import { kubeRequest, MERGE_PATCH, type KubeQuery } from './http.js';
import { describeKey } from './objects.js';

export interface RawList {
  items?: unknown[];
  metadata?: { resourceVersion?: string; continue?: string };
}

export interface ListQuery {
  namespace?: string;
  labelSelector?: string;
  limit?: number;
  continueToken?: string;
}

export interface ResourceClient {
  get(def: KindDefinition, key: ObjectKey): Promise<unknown>;
  list(def: KindDefinition, query: ListQuery): Promise<RawList>;
  create(def: KindDefinition, key: ObjectKey, body: Resource): Promise<unknown>;
  replace(def: KindDefinition, key: ObjectKey, body: Resource): Promise<unknown>;
  replaceStatus(def: KindDefinition, key: ObjectKey, body: Resource): Promise<unknown>;
  /** RFC 7386 merge patch (`application/merge-patch+json`). */
  patch(def: KindDefinition, key: ObjectKey, body: Record<string, unknown>): Promise<unknown>;
  patchStatus(def: KindDefinition, key: ObjectKey, body: Record<string, unknown>): Promise<unknown>;
  delete(def: KindDefinition, key: ObjectKey, options: V1DeleteOptions): Promise<unknown>;
}

/** The kind's collection, in `namespace` for a namespaced kind (all namespaces without one). */
export function collectionPath(def: KindDefinition, namespace: string | undefined): string {
  const ns = def.scope === 'Namespaced' && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  // the core group ('' : Secrets) is served under /api, every other under /apis
  return `${def.group === '' ? '/api' : '/apis'}/${apiVersionOf(def)}${ns}/${def.plural}`;
}

export interface ResourceClientDeps {
  kubeconfig: KubeConfig;
  fieldManager: string;
  /** bound on each request (answer included). */
  requestTimeoutMs: number;
}

export function createResourceClient(deps: ResourceClientDeps): ResourceClient {
  const { kubeconfig, fieldManager } = deps;
  const send = (method: string, path: string, query: KubeQuery, body?: unknown, contentType?: string) =>
    withBound(deps.requestTimeoutMs, (signal) => kubeRequest(kubeconfig, { method, path, query, body, contentType, signal }));

  async function call<T>(def: KindDefinition, key: ObjectKey, op: Operation, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const what = describeKey(def, key);
      if ((err as Error | null)?.name === 'AbortError') throw new TimeoutError(`${what}: no answer from the Kubernetes API within ${deps.requestTimeoutMs} ms`, { cause: err });
      throw toStoreError(err, what, op);
    }
  }

  const item = (def: KindDefinition, key: ObjectKey, sub = ''): string => `${collectionPath(def, key.namespace)}/${encodeURIComponent(key.name)}${sub}`;
  const write = { fieldManager };

  return {
    get: (def, key) => call(def, key, 'read', () => send('GET', item(def, key), {})),

    list: (def, query) =>
      call(def, { namespace: query.namespace, name: '(list)' }, 'read', () =>
        send('GET', collectionPath(def, query.namespace), { labelSelector: query.labelSelector, limit: query.limit, continue: query.continueToken }),
      ) as Promise<RawList>,

    create: (def, key, body) => call(def, key, 'create', () => send('POST', collectionPath(def, key.namespace), write, body)),
    replace: (def, key, body) => call(def, key, 'write', () => send('PUT', item(def, key), write, body)),
    replaceStatus: (def, key, body) => call(def, key, 'write', () => send('PUT', item(def, key, '/status'), write, body)),
    patch: (def, key, body) => call(def, key, 'write', () => send('PATCH', item(def, key), write, body, MERGE_PATCH)),
    patchStatus: (def, key, body) => call(def, key, 'write', () => send('PATCH', item(def, key, '/status'), write, body, MERGE_PATCH)),
    delete: (def, key, options) => call(def, key, 'write', () => send('DELETE', item(def, key), {}, options)),
  };
}
