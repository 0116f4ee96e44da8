/**
 * One kind's endpoints through client-node's CustomObjectsApi, with namespaced and cluster scope
 * behind one interface. Calls return the raw answer and throw typed errors (kube-errors.ts).
 */
import {
  CustomObjectsApi,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type KubeConfig,
  type ObservableMiddleware,
  type V1DeleteOptions,
} from '@kubernetes/client-node';
import { GROUP, VERSION, type KindDefinition, type Resource } from '../../api/index.js';
import { TimeoutError } from '../../errors.js';
import type { ObjectKey } from '../port.js';
import { toStoreError, type Operation } from './kube-errors.js';
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

/** client-node sets no timeout of its own: a hung apiserver would hang every caller. */
function timeoutMiddleware(ms: number): ObservableMiddleware {
  return {
    pre(context) {
      context.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
}

export interface ResourceClientDeps {
  kubeconfig: KubeConfig;
  fieldManager: string;
  /** bound on each request (answer included). */
  requestTimeoutMs: number;
}

export function createResourceClient(deps: ResourceClientDeps): ResourceClient {
  const api = deps.kubeconfig.makeApiClient(CustomObjectsApi);
  const fieldManager = deps.fieldManager;
  const bounded: ConfigurationOptions<ObservableMiddleware> = { middleware: [timeoutMiddleware(deps.requestTimeoutMs)], middlewareMergeStrategy: 'append' };
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch, bounded);

  async function call<T>(def: KindDefinition, key: ObjectKey, op: Operation, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const what = describeKey(def, key);
      if ((err as Error | null)?.name === 'AbortError') throw new TimeoutError(`${what}: no answer from the Kubernetes API within ${deps.requestTimeoutMs} ms`, { cause: err });
      throw toStoreError(err, what, op);
    }
  }

  /** Parameters shared by every per-object call; `namespace` only for namespaced kinds. */
  function target(def: KindDefinition, key: ObjectKey) {
    return { group: GROUP, version: VERSION, plural: def.plural, name: key.name, namespace: key.namespace ?? '' };
  }

  const namespaced = (def: KindDefinition): boolean => def.scope === 'Namespaced';

  return {
    get: (def, key) =>
      call(def, key, 'read', () => (namespaced(def) ? api.getNamespacedCustomObject(target(def, key), bounded) : api.getClusterCustomObject(target(def, key), bounded))),

    list: (def, query) => {
      const base = {
        group: GROUP,
        version: VERSION,
        plural: def.plural,
        labelSelector: query.labelSelector,
        limit: query.limit,
        _continue: query.continueToken,
      };
      const key = { namespace: query.namespace, name: '(list)' };
      return call(def, key, 'read', () =>
        namespaced(def) && query.namespace
          ? api.listNamespacedCustomObject({ ...base, namespace: query.namespace }, bounded)
          : api.listClusterCustomObject(base, bounded),
      ) as Promise<RawList>;
    },

    create: (def, key, body) =>
      call(def, key, 'create', () =>
        namespaced(def)
          ? api.createNamespacedCustomObject({ ...target(def, key), body, fieldManager }, bounded)
          : api.createClusterCustomObject({ ...target(def, key), body, fieldManager }, bounded),
      ),

    replace: (def, key, body) =>
      call(def, key, 'write', () =>
        namespaced(def)
          ? api.replaceNamespacedCustomObject({ ...target(def, key), body, fieldManager }, bounded)
          : api.replaceClusterCustomObject({ ...target(def, key), body, fieldManager }, bounded),
      ),

    replaceStatus: (def, key, body) =>
      call(def, key, 'write', () =>
        namespaced(def)
          ? api.replaceNamespacedCustomObjectStatus({ ...target(def, key), body, fieldManager }, bounded)
          : api.replaceClusterCustomObjectStatus({ ...target(def, key), body, fieldManager }, bounded),
      ),

    patch: (def, key, body) =>
      call(def, key, 'write', () =>
        namespaced(def)
          ? api.patchNamespacedCustomObject({ ...target(def, key), body, fieldManager }, mergePatch)
          : api.patchClusterCustomObject({ ...target(def, key), body, fieldManager }, mergePatch),
      ),

    patchStatus: (def, key, body) =>
      call(def, key, 'write', () =>
        namespaced(def)
          ? api.patchNamespacedCustomObjectStatus({ ...target(def, key), body, fieldManager }, mergePatch)
          : api.patchClusterCustomObjectStatus({ ...target(def, key), body, fieldManager }, mergePatch),
      ),

    delete: (def, key, options) =>
      call(def, key, 'write', () =>
        namespaced(def)
          ? api.deleteNamespacedCustomObject({ ...target(def, key), body: options }, bounded)
          : api.deleteClusterCustomObject({ ...target(def, key), body: options }, bounded),
      ),
  };
}
