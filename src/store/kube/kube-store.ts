/**
 * KubeStore: the StateStore port over a real kube-apiserver (the CRDs in crds/ must be installed).
 *
 * The apiserver enforces the port's semantics itself (uid, resourceVersion, generation, the status
 * subresource, finalizers); this adapter maps the endpoints and the errors. Choices of this adapter:
 * - Objects are validated with the project's schema before they are sent, as the embedded store does,
 *   so an invalid object fails with the same schema paths. A patch is judged by the apiserver (the CRD
 *   schema, which src/api generates, answers 422 → InvalidSpecError): validating it here would need
 *   the object it produces, one GET per patch (issue 23: requests per guest).
 * - update/updateStatus without metadata.resourceVersion are unconditional: the apiserver requires a
 *   resourceVersion for custom resources, so the current one is read and the write retried on conflict.
 * - A watch without resourceVersion starts "now": watch() reads the current resourceVersion at once,
 *   and later writes through this store wait for that read, so a change made after watch() returned is
 *   never missed and nothing older is replayed.
 * - managedFields are dropped from everything handed out; a namespace given for a cluster-scoped
 *   kind is ignored by list and watch.
 * - With `guardFieldOwners`, a patch of spec fields that another field manager owns, or a delete of an
 *   object with such fields, is refused (FieldOwnedError) — the REST sidecar's rule (README: GitOps).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { lookupKind, type KindDefinition, type Resource } from '../../api/index.js';
import { ConflictError, InvalidInputError, NotFoundError, ZvmError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { isJsonObject } from '../common/json.js';
import { keyOf, type LabelSelector, type ListOptions, type ListResult, type MergePatch, type ObjectKey, type StateStore, type WatchEvent, type WatchOptions } from '../port.js';
import { isObjectNotFound } from './kube-errors.js';
import { createBody, definitionOf, describeKey, fromServer, normalizeKey, patchResourceVersion, statusBody, updateBody } from './objects.js';
import { computeForeignOwners, FieldOwnedError, managerOfField, type ManagedFieldsEntry } from './field-owners.js';
import { collectionPath, createResourceClient, type RawList } from './resource-client.js';
import { watchStream } from './watch-stream.js';
import { pooled } from './connection-pool.js';

export interface KubeStoreOptions {
  /** default: loaded the way kubectl does (KUBECONFIG, ~/.kube/config, or in-cluster). */
  kubeconfig?: KubeConfig;
  log?: Logger;
  /** recorded in managedFields for every write; default `zvm-operator`. */
  fieldManager?: string;
  /** server-side end of each watch (the caller restarts it); default 300-600 s, spread like client-go. */
  watchTimeoutSeconds?: number;
  /** page size of list; default 500. */
  listPageSize?: number;
  /** bound on each request other than a watch, answer included; default 30 s (then TIMEOUT). */
  requestTimeoutMs?: number;
  /** refuse spec writes and deletes that would take fields from managers outside this list (see the header) */
  guardFieldOwners?: { allowedManagers: string[] };
}

/** Bounds on loops that depend on the apiserver's answers. */
const UNCONDITIONAL_ATTEMPTS = 5;
const MAX_LIST_PAGES = 1_000;

/** The apiserver's selector syntax; an empty notin set is left out (the apiserver refuses `notin ()`). */
function selectorString(selector: LabelSelector | undefined): string | undefined {
  const parts = Object.entries(selector ?? {}).map(([k, v]) => {
    if (v === null) return `!${k}`;
    if (typeof v === 'string') return `${k}=${v}`;
    return v.notIn.length > 0 ? `${k},${k} notin (${v.notIn.join(',')})` : k;
  });
  return parts.length > 0 ? parts.join(',') : undefined;
}

function patchObject(patch: MergePatch, what: string): MergePatch {
  if (!isJsonObject(patch)) throw new InvalidInputError(`${what} must be a JSON object`);
  return patch;
}

export function createKubeStore(options: KubeStoreOptions = {}): StateStore {
  const log = (options.log ?? silentLogger()).child({ component: 'kube-store' });
  const kubeconfig = pooled(options.kubeconfig ?? loadDefaultKubeconfig());
  const client = createResourceClient({
    kubeconfig,
    fieldManager: options.fieldManager ?? 'zvm-operator',
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  const pageSize = options.listPageSize ?? 500;
  const watches = new Set<AbortController>();
  /** resourceVersion reads of watches being started; writes wait for them (see the header). */
  const starting = new Set<Promise<void>>();
  let closed = false;

  function watchTimeoutSeconds(): number {
    return options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
  }

  async function beforeWrite(): Promise<void> {
    if (closed) throw new ZvmError('UNAVAILABLE', 'the kube store is closed');
    while (starting.size > 0) await Promise.all([...starting]);
  }

  async function mustGet(def: KindDefinition, key: ObjectKey): Promise<Resource> {
    return fromServer<Resource>(await client.get(def, key));
  }

  const allowedManagers = options.guardFieldOwners && new Set([options.fieldManager ?? 'zvm-operator', ...options.guardFieldOwners.allowedManagers]);

  /** Reads the object and refuses the write when a foreign manager owns the fields (all spec fields: undefined). */
  async function getGuarded(def: KindDefinition, key: ObjectKey, fields: string[] | undefined): Promise<Resource> {
    const raw = (await client.get(def, key)) as Resource;
    if (allowedManagers && (fields === undefined || fields.length > 0)) {
      const entries = ((raw.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields) ?? [];
      const owners = computeForeignOwners(entries, allowedManagers, fields);
      if (owners.length > 0) throw new FieldOwnedError(describeKey(def, key), owners);
    }
    return fromServer<Resource>(raw);
  }

  /** Sends a replace with the caller's resourceVersion, or unconditionally (read, send, retry on conflict). */
  async function replaceVersioned(def: KindDefinition, key: ObjectKey, body: Resource, send: (b: Resource) => Promise<unknown>): Promise<unknown> {
    if (body.metadata.resourceVersion) return send(body);
    for (let attempt = 1; ; attempt += 1) {
      const current = await mustGet(def, key);
      try {
        return await send({ ...body, metadata: { ...body.metadata, resourceVersion: current.metadata.resourceVersion } });
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= UNCONDITIONAL_ATTEMPTS) throw err;
      }
    }
  }

  async function listPages(def: KindDefinition, opts: ListOptions, limit: number, onePage: boolean): Promise<{ items: unknown[]; resourceVersion: string }> {
    const items: unknown[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const namespace = def.scope === 'Namespaced' ? opts.namespace : undefined;
      const raw: RawList = await client.list(def, { namespace, labelSelector: selectorString(opts.labelSelector), limit, continueToken });
      items.push(...(raw.items ?? []));
      // Every page of a paginated list is served at the first page's resourceVersion.
      if (page === 0) resourceVersion = raw.metadata?.resourceVersion ?? '';
      continueToken = raw.metadata?.continue || undefined;
      if (!continueToken || onePage) return { items, resourceVersion };
    }
    throw new ZvmError('UNAVAILABLE', `${def.kind} list did not finish within ${MAX_LIST_PAGES} pages`);
  }

  /** Registers the resourceVersion read of a starting watch so that writes wait for it. */
  function startingPoint(def: KindDefinition, namespace: string | undefined): Promise<string> {
    const read = listPages(def, { namespace }, 1, true).then((r) => r.resourceVersion);
    const settled = read.then(
      () => undefined,
      () => undefined,
    );
    starting.add(settled);
    void settled.then(() => starting.delete(settled));
    return read;
  }

  return {
    async get<T extends Resource>(kind: string, key: ObjectKey) {
      const def = definitionOf(kind);
      const k = normalizeKey(def, key);
      try {
        return fromServer<T>(await client.get(def, k));
      } catch (err) {
        // A 404 about the object means absent; one about the resource type (no CRD) is an error.
        if (err instanceof NotFoundError && isObjectNotFound(err.cause, k.name)) return undefined;
        throw err;
      }
    },

    /** One GET that keeps managedFields (everything else hands them out stripped): rare reads, e.g. who approved a plan. */
    async fieldManagerOf(kind: string, key: ObjectKey, path: readonly string[]) {
      const def = definitionOf(kind);
      const raw = (await client.get(def, normalizeKey(def, key))) as Resource;
      return managerOfField((raw.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [], path);
    },

    async list<T extends Resource>(kind: string, opts: ListOptions = {}): Promise<ListResult<T>> {
      const def = definitionOf(kind);
      const { items, resourceVersion } = await listPages(def, opts, pageSize, false);
      return { items: items.map((item) => fromServer<T>(item)), resourceVersion };
    },

    async create<T extends Resource>(obj: T) {
      const { def, body } = createBody(obj);
      await beforeWrite();
      return fromServer<T>(await client.create(def, keyOf(body), body));
    },

    async update<T extends Resource>(obj: T) {
      const { def, body } = updateBody(obj);
      const key = normalizeKey(def, keyOf(body));
      body.metadata.namespace = key.namespace;
      await beforeWrite();
      return fromServer<T>(await replaceVersioned(def, key, body, (b) => client.replace(def, key, b)));
    },

    async patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, opts: { resourceVersion?: string } = {}) {
      const def = definitionOf(kind);
      const k = normalizeKey(def, key);
      patchObject(patch, 'a patch');
      await beforeWrite();
      const fields = isJsonObject(patch.spec) ? Object.keys(patch.spec) : [];
      if (allowedManagers && fields.length > 0) await getGuarded(def, k, fields);
      const rv = opts.resourceVersion || patchResourceVersion(patch);
      const body = rv ? { ...patch, metadata: { ...(patch.metadata as object | undefined), resourceVersion: rv } } : patch;
      return fromServer<T>(await client.patch(def, k, body));
    },

    async updateStatus<T extends Resource>(obj: T) {
      const { def, body } = statusBody(obj);
      const key = normalizeKey(def, keyOf(body));
      body.metadata.namespace = key.namespace;
      await beforeWrite();
      return fromServer<T>(await replaceVersioned(def, key, body, (b) => client.replaceStatus(def, key, b)));
    },

    async patchStatus<T extends Resource>(kind: string, key: ObjectKey, status: MergePatch, opts: { resourceVersion?: string } = {}) {
      const def = definitionOf(kind);
      const k = normalizeKey(def, key);
      patchObject(status, 'a status patch');
      await beforeWrite();
      const body: Record<string, unknown> = { status };
      if (opts.resourceVersion) body.metadata = { resourceVersion: opts.resourceVersion };
      return fromServer<T>(await client.patchStatus(def, k, body));
    },

    async delete(kind: string, key: ObjectKey, opts: { resourceVersion?: string } = {}) {
      const def = definitionOf(kind);
      const k = normalizeKey(def, key);
      await beforeWrite();
      if (allowedManagers) await getGuarded(def, k, undefined);
      const preconditions = opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : undefined;
      // With finalizers the apiserver only sets deletionTimestamp; their owners remove them when done.
      await client.delete(def, k, { propagationPolicy: 'Background', ...(preconditions ? { preconditions } : {}) });
    },

    watch<T extends Resource>(kind: string, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
      const def: KindDefinition | undefined = lookupKind(kind); // an unknown kind fails when iterated, as in the embedded store
      const controller = new AbortController();
      watches.add(controller);
      if (closed) controller.abort();
      const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
      const namespace = def?.scope === 'Namespaced' ? opts.namespace : undefined;
      // Without a resourceVersion the watch starts now, not when the caller begins to iterate.
      const from = opts.resourceVersion || !def || signal.aborted ? undefined : startingPoint(def, namespace);
      return (async function* watchKind(): AsyncGenerator<WatchEvent<T>> {
        try {
          const known = definitionOf(kind);
          if (signal.aborted) return;
          const resourceVersion = opts.resourceVersion || (await (from as Promise<string>));
          if (signal.aborted) return;
          const what = `${known.kind} watch${namespace ? ` in ${namespace}` : ''}`;
          const path = collectionPath(known, namespace);
          log.debug({ what, resourceVersion }, 'watch starting');
          yield* watchStream<T>(kubeconfig, { path, resourceVersion, labelSelector: selectorString(opts.labelSelector), timeoutSeconds: watchTimeoutSeconds(), signal, what }, log);
        } finally {
          watches.delete(controller);
        }
      })();
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const controller of watches) controller.abort();
      watches.clear();
      log.debug('kube store closed');
    },
  };
}

function loadDefaultKubeconfig(): KubeConfig {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromDefault();
  return kubeconfig;
}
