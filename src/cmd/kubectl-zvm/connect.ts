/**
 * Where `kubectl zvm` acts: a cluster (kubeconfig, as kubectl finds it) or, with --server, a
 * standalone instance's admin API. Either way the verbs get a StateStore and read-only live reads.
 */
import type { ZGuest } from '../../api/index.js';
import { NotFoundError } from '../../errors.js';
import { silentLogger } from '../../log.js';
import { DEFAULT_REST_CONFIG } from '../../rest/config.js';
import { createGuestService, type GuestService } from '../../rest/guests/service.js';
import { createStoreFeed, type StoreFeed } from '../../rest/store-feed.js';
import { createWriteAndWait, type WriteAndWait } from '../../rest/write-and-wait.js';
import type { ObjectMeta } from '../../api/index.js';
import { MANAGED_BY_LABEL, PLUGIN_FIELD_MANAGER } from '../../rest/ownership.js';
import type { StateStore } from '../../store/port.js';
import { createAdminApi, createAdminStore, type AdminApi } from './admin-api.js';
import { adminLiveReads, readOnlyHypervisors, type LiveReads } from './live.js';

export interface GlobalOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  server?: string;
  adminTokenFile?: string;
  token?: string;
  operatorNamespace: string;
  takeOver?: boolean;
}

export interface Backend {
  store: StateStore;
  /** one watch per kind for every wait of the verb (REST's store feed) */
  feed: StoreFeed;
  live: LiveReads;
  /** -n, else the kubeconfig context's namespace, else default */
  namespace: string;
  /** the admin API of a standalone instance (--server); absent against a cluster */
  admin?: AdminApi;
  close(): Promise<void>;
}

/** A standalone instance's admin API with --server; else the cluster, whose client loads only then (kube-backend.ts). */
export async function connect(opts: GlobalOptions): Promise<Backend> {
  if (opts.server) {
    const admin = createAdminApi({ server: opts.server, adminTokenFile: opts.adminTokenFile, token: opts.token });
    const store = createAdminStore(admin);
    const feed = createStoreFeed(store, silentLogger());
    return { store, feed, live: adminLiveReads(admin), namespace: opts.namespace ?? 'default', admin, close: async () => feed.close() };
  }
  return (await import('./kube-backend.js')).connectCluster(opts);
}

/** REST's write-and-wait over the backend, bounded by `timeoutMs` (0: write, then answer "still running"). */
export function writesOf(b: Backend, timeoutMs: number): WriteAndWait {
  return createWriteAndWait({ store: b.store, feed: b.feed, config: { operationTimeoutMs: timeoutMs }, log: silentLogger() });
}

/** The REST guest service over the backend: the verbs run REST's own actions (rest/guests/actions.ts). */
export function guestServiceOf(b: Backend, timeoutMs: number): GuestService {
  return createGuestService({
    store: b.store,
    hypervisors: readOnlyHypervisors(b.live),
    config: { ...DEFAULT_REST_CONFIG, namespace: b.namespace, operationTimeoutMs: timeoutMs },
    log: silentLogger(),
    writes: writesOf(b, timeoutMs),
  });
}

export async function requireGuest(b: Backend, name: string): Promise<ZGuest> {
  const guest = await b.store.get<ZGuest>('ZGuest', { namespace: b.namespace, name });
  if (!guest) throw new NotFoundError(`zguest "${name}" not found in namespace ${b.namespace}`);
  return guest;
}

/** Metadata of an object a verb creates (ZImage, ZGuestAction): marked as the plugin's, as REST marks its own. */
export function pluginOwned<M extends ObjectMeta>(meta: M): M {
  return { ...meta, labels: { ...meta.labels, [MANAGED_BY_LABEL]: PLUGIN_FIELD_MANAGER } };
}
