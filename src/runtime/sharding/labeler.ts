import type { Resource } from '../../api/index.js';
import { silentLogger, type Logger } from '../../log.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { createInformer } from '../informer.js';
import type { Runnable } from '../runnable.js';

/**
 * Puts the label `zvm.dev/host` on every resource that names a host, so that a replica can watch only
 * the resources of the hosts it holds (timebertt/kubernetes-controller-sharding assigns objects the same
 * way). The label is derived from the spec (spec.host, a ZHost's own name, a ZGuestAction's guest) and
 * set once: the host of a resource is immutable. Every replica runs it on the objects that lack the
 * label only (selector `!zvm.dev/host`), so its cache stays empty once everything is labelled.
 */
export const HOST_LABEL = 'zvm.dev/host';
export const DEFAULT_HOST = 'default';

/** The kinds that belong to one host, and how to find that host. */
const HOST_OF: Record<string, (obj: Resource, store: StateStore) => Promise<string | undefined> | string | undefined> = {
  ZHost: (obj) => obj.metadata.name,
  ZGuest: specHost,
  ZVolume: specHost,
  ZVswitch: specHost,
  ZImage: specHost,
  ZFcpTemplate: specHost,
  ZGuestAction: async (obj, store) => {
    const guestName = (obj.spec as { guest?: string } | undefined)?.guest;
    if (!guestName) return undefined;
    const guest = await store.get('ZGuest', { namespace: obj.metadata.namespace, name: guestName });
    return guest ? specHost(guest) : undefined;
  },
};

export const SHARDED_KINDS = Object.keys(HOST_OF);

function specHost(obj: Resource): string {
  return (obj.spec as { host?: string } | undefined)?.host ?? DEFAULT_HOST;
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
}

export function createHostLabeler(o: HostLabelerOptions): Runnable {
  const log = (o.log ?? silentLogger()).child({ component: 'host-labeler' });
  const informers = SHARDED_KINDS.map((kind) => {
    const informer = createInformer({ store: o.store, kind, labelSelector: { [HOST_LABEL]: null }, resyncMs: o.resyncMs ?? 30_000, log: o.log });
    const label = (obj: Resource): void => void labelOne(obj);
    informer.addHandler({ onAdd: label, onUpdate: (_old, obj) => label(obj) });
    return informer;
  });

  async function labelOne(obj: Resource): Promise<void> {
    try {
      const host = await hostOf(obj, o.store);
      if (!host) return;
      await o.store.patch(obj.kind, keyOf(obj), { metadata: { labels: { [HOST_LABEL]: host } } });
      log.debug({ kind: obj.kind, name: obj.metadata.name, host }, 'host label set');
    } catch (err) {
      log.warn({ err, kind: obj.kind, name: obj.metadata.name }, 'could not set the host label');
    }
  }

  return {
    name: 'host-labeler',
    async start(signal) {
      await Promise.all(informers.map((i) => i.start(signal)));
    },
  };
}
