import { CLUSTER_NAME_LABEL, DEFAULT_HOST, hostOf as specHost, INFRA_GROUP, KINDS, machineHost, type HostFrom, type Resource, type ZVMCluster } from '../../api/index.js';
import { ConflictError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { keyOf, keyString, type ObjectKey, type StateStore } from '../../store/port.js';
import { createInformer } from '../informer.js';
import type { Runnable } from '../runnable.js';
import { createWorkQueue } from '../work-queue.js';

/**
 * Puts the label `zvm.dev/host` on every resource that names a host, so that a replica can watch only
 * the resources of the hosts it holds (timebertt/kubernetes-controller-sharding assigns objects the same
 * way). The label is derived from the spec (spec.host, a ZHost's own name, a ZGuestAction's guest) and
 * set once: the host of a resource is immutable. Every replica runs it on the objects that lack the
 * label only (selector `!zvm.dev/host`), so its cache stays empty once everything is labelled.
 */
export const HOST_LABEL = 'zvm.dev/host';
export { DEFAULT_HOST };

type HostFinder = (obj: Resource, store: StateStore) => Promise<string | undefined> | string | undefined;

/** How to find a resource's host, for each way a kind's row (api/kinds.ts `host`) can say it. */
const FINDERS: Record<Exclude<HostFrom, 'none'>, HostFinder> = {
  self: (obj) => obj.metadata.name,
  spec: specHost,
  // a pool runs where its first host is held; its guests carry their own hosts
  firstPoolHost: poolHost,
  // Cluster API: a machine belongs to the host its guest will use, once what decides it is known
  machine: zvmMachineHost,
  guest: async (obj, store) => {
    const guestName = (obj.spec as { guest?: string } | undefined)?.guest;
    if (!guestName) return undefined;
    const guest = await store.get('ZGuest', { namespace: obj.metadata.namespace, name: guestName });
    return guest ? specHost(guest) : undefined;
  },
};

/** The kinds that belong to one host, and how to find that host: from each kind's row. */
const HOST_OF: Record<string, HostFinder> = Object.fromEntries(
  Object.values(KINDS).flatMap((d) => (d.host === 'none' ? [] : [[d.kind, FINDERS[d.host]]])),
);

/** The Cluster API provider's kinds: labelled only where it runs (--capi; their CRDs may not exist elsewhere). */
export const CAPI_SHARDED_KINDS = Object.values(KINDS).filter((d) => d.group === INFRA_GROUP && d.host !== 'none').map((d) => d.kind);
export const SHARDED_KINDS = Object.keys(HOST_OF).filter((k) => !CAPI_SHARDED_KINDS.includes(k));

/** A machine's host as its reconciler will choose it (machineHost), once what decides it is known. */
async function zvmMachineHost(obj: Resource, store: StateStore): Promise<string | undefined> {
  const zm = obj as Resource<{ host?: string; failureDomain?: string }>;
  if (zm.spec.host) return zm.spec.host;
  const owner = obj.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
  const machine = owner ? await store.get<Resource<{ failureDomain?: string }>>('Machine', { namespace: obj.metadata.namespace, name: owner.name }) : undefined;
  if (!machine) return undefined;
  if (machine.spec.failureDomain || zm.spec.failureDomain) return machineHost(zm, machine, undefined);
  const clusterName = obj.metadata.labels?.[CLUSTER_NAME_LABEL];
  const cluster = clusterName ? await store.get<Resource<{ infrastructureRef?: { name?: string } }>>('Cluster', { namespace: obj.metadata.namespace, name: clusterName }) : undefined;
  const infra = cluster?.spec.infrastructureRef?.name;
  const zvmCluster = infra ? await store.get<ZVMCluster>('ZVMCluster', { namespace: obj.metadata.namespace, name: infra }) : undefined;
  // no failure domains yet: looked at again (the cluster's first one is the answer once there)
  return zvmCluster?.status?.failureDomains?.length ? machineHost(zm, machine, zvmCluster) : undefined;
}

/** A pool's first host: listed, else the first ZHost its hostSelector picks (none yet: looked at again), else default. */
async function poolHost(obj: Resource, store: StateStore): Promise<string | undefined> {
  const spec = obj.spec as { hosts?: string[]; hostSelector?: { matchLabels: Record<string, string> } } | undefined;
  if (spec?.hosts?.[0]) return spec.hosts[0];
  if (!spec?.hostSelector) return DEFAULT_HOST;
  const { items } = await store.list('ZHost', { labelSelector: spec.hostSelector.matchLabels });
  return items.map((h) => h.metadata.name).sort()[0];
}

/** The host a resource belongs to: its label once set, else what its spec says. */
export async function hostOf(obj: Resource, store: StateStore): Promise<string | undefined> {
  return obj.metadata.labels?.[HOST_LABEL] ?? HOST_OF[obj.kind]?.(obj, store);
}

export interface HostLabelerOptions {
  store: StateStore;
  log?: Logger;
  /** looks again at objects still unlabelled (a ZGuestAction whose guest did not exist yet); default 30 s */
  resyncMs?: number;
  /** label writes in flight at once; default 4 */
  concurrency?: number;
  /** whether this replica labels the host's objects at once (it holds the host, or nobody can); absent: always */
  labelsAtOnce?: (host: string) => boolean;
  /** how long a replica waits before labelling for a host it does not hold; default 30 s */
  deferMs?: number;
  /** --capi: the Cluster API provider's kinds too */
  capi?: boolean;
  /**
   * The metadata the object's controller would write first, now (its claim: finalizers, annotations; absent:
   * none), stamped in the label's write, so a new guest costs the apiserver one metadata write, not two
   * (issue 38); the controller then finds it there. Guarded by the object's resourceVersion, since it
   * replaces the finalizer list.
   */
  claimOf?: (obj: Resource, host: string) => { finalizers?: string[]; annotations?: Record<string, string> } | undefined;
}

export type LabelDecision = { act: 'label' } | { act: 'wait'; until: number };

/**
 * Every replica sees every unlabelled object, and if all of them patched it, a guest created among R replicas
 * would get R label writes (and R update events to each replica's caches). The holder of the host labels at
 * once (every replica does for a host without a ZHost, which nobody can hold); the others only after `deferMs`
 * (counted from their first look), by when the holder has normally done it and the object has left their
 * cache, even with a backlog of thousands of new guests. The fallback keeps objects of a host nobody holds
 * yet labelled. A waiting object is looked at again every few seconds, so a replica that acquires the host
 * meanwhile labels it then.
 */
export function labelDecision(atOnce: boolean, now: number, deferredUntil: number | undefined, deferMs: number): LabelDecision {
  if (atOnce) return { act: 'label' };
  const until = deferredUntil ?? now + deferMs;
  return now >= until ? { act: 'label' } : { act: 'wait', until };
}

interface LabelKey {
  kind: string;
  key: ObjectKey;
}

const labelId = (k: LabelKey): string => `${k.kind}/${keyString(k.key)}`;

/**
 * Labels through a work queue: an object is queued once however many events and resyncs name it, and only
 * `concurrency` writes are in flight. Thousands of guests created at once (or found unlabelled at start, by
 * every replica) would otherwise each start a request at the same moment and swamp the apiserver.
 */
export function createHostLabeler(o: HostLabelerOptions): Runnable {
  const log = (o.log ?? silentLogger()).child({ component: 'host-labeler' });
  const queue = createWorkQueue<LabelKey>({
    name: 'host-labeler',
    concurrency: o.concurrency ?? 4,
    maxDelayMs: 60_000,
    keyOf: labelId,
    onError: (err, k) => log.warn({ err, kind: k.kind, name: k.key.name }, 'could not set the host label; retrying'),
  });
  /**
   * The resourceVersion each label write was made from, until the object leaves the cache. Between the write's
   * answer and its watch event the cache still holds the unlabelled version, and a resync re-delivers it: written
   * again, it would be a second PATCH (a 409 where the claim guards it by resourceVersion).
   */
  const writtenFrom = new Map<string, string>();
  const informers = new Map([...SHARDED_KINDS, ...(o.capi ? CAPI_SHARDED_KINDS : [])].map((kind) => {
    const informer = createInformer({ store: o.store, kind, labelSelector: { [HOST_LABEL]: null }, resyncMs: o.resyncMs ?? 30_000, log: o.log });
    const enqueue = (obj: Resource): void => queue.add({ kind, key: keyOf(obj) });
    informer.addHandler({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: (obj) => void writtenFrom.delete(labelId({ kind, key: keyOf(obj) })) });
    return [kind, informer] as const;
  }));

  const deferMs = o.deferMs ?? 30_000;
  const recheckMs = Math.min(deferMs, 2000);
  const deferred = new Map<string, number>(); // label key → when a replica not holding the host labels anyway

  function writeLabel(obj: Resource, host: string): Promise<Resource> {
    const labels = { [HOST_LABEL]: host };
    const claim = o.claimOf?.(obj, host);
    if (!claim) return o.store.patch(obj.kind, keyOf(obj), { metadata: { labels } });
    return o.store.patch(obj.kind, keyOf(obj), { metadata: { ...claim, labels } }, { resourceVersion: obj.metadata.resourceVersion });
  }

  async function labelOne(k: LabelKey): Promise<void> {
    const id = labelId(k);
    // the cache holds unlabelled objects only: absent means labelled meanwhile, or deleted
    const obj = informers.get(k.kind)?.get(k.key);
    // labelled already: the write's watch event, on its way, takes the object out of the cache
    if (obj?.metadata.resourceVersion !== undefined && writtenFrom.get(id) === obj.metadata.resourceVersion) return;
    const host = obj && (await hostOf(obj, o.store));
    if (host) {
      const now = Date.now();
      const decision = labelDecision(o.labelsAtOnce?.(host) ?? true, now, deferred.get(id), deferMs);
      if (decision.act === 'wait') {
        deferred.set(id, decision.until);
        queue.addAfter(k, Math.min(decision.until - now, recheckMs));
        return;
      }
      try {
        await writeLabel(obj, host);
        if (obj.metadata.resourceVersion !== undefined) writtenFrom.set(id, obj.metadata.resourceVersion);
      } catch (err) {
        // changed since the cache saw it: its update event queues it again, and so does the backoff
        if (!(err instanceof ConflictError)) throw err;
        queue.addRateLimited(k);
        return;
      }
      log.debug({ kind: k.kind, name: k.key.name, host }, 'host label set');
    }
    deferred.delete(id);
    queue.forget(k);
  }

  return {
    name: 'host-labeler',
    async start(signal) {
      const stop = (): void => void queue.shutdown();
      signal.addEventListener('abort', stop, { once: true });
      if (signal.aborted) stop();
      try {
        await Promise.all([...[...informers.values()].map((i) => i.start(signal)), queue.run(labelOne)]);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
  };
}
