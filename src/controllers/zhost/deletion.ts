import { HOST_FINALIZER, hostOf, KINDS, type ZHost } from '../../api/index.js';
import { HOST_LABEL } from '../../runtime/sharding/labeler.js';
import type { StateStore } from '../../store/port.js';

/**
 * A ZHost that resources still name is not removed under them: its finalizer holds the deletion
 * (condition GuestsRemaining) while they exist, so that the host stays connected and their own
 * deletions can still reach it; the last one gone releases it, as PVC protection does for volumes.
 */
export const GUESTS_REMAINING = 'GuestsRemaining';

/** The kinds whose resources hold their host's deletion: their rows say so (api/kinds.ts holdsHostDeletion). */
export const DEPENDENT_KINDS = Object.values(KINDS).filter((d) => d.holdsHostDeletion).map((d) => d.kind);

export type Dependents = Partial<Record<string, number>>;

export type HostDeletionStep =
  | { op: 'addFinalizer' }
  | { op: 'hold'; message: string }
  | { op: 'release' };


/** Pure: what the finalizer needs; undefined once it is on and the host is not being deleted. */
export function planHostDeletion(host: ZHost, dependents: Dependents | undefined): HostDeletionStep | undefined {
  const held = (host.metadata.finalizers ?? []).includes(HOST_FINALIZER);
  if (!host.metadata.deletionTimestamp) return held ? undefined : { op: 'addFinalizer' };
  if (!held) return undefined;
  const counts = Object.entries(dependents ?? {}).filter(([, n]) => (n ?? 0) > 0);
  if (counts.length === 0) return { op: 'release' };
  const what = counts.map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`).join(', ');
  return {
    op: 'hold',
    message: `${what} still on this host: the ZHost goes once they are deleted (a resource whose host cannot be reached is deleted with spec.deletionPolicy: Orphan)`,
  };
}

/**
 * How many resources of each kind name the host: those labelled for it (sharded deployments label
 * every resource) and unlabelled ones whose spec names it (standalone, or not labelled yet).
 */
export async function countDependents(store: StateStore, host: string): Promise<Dependents> {
  const out: Dependents = {};
  for (const kind of DEPENDENT_KINDS) {
    const [labelled, unlabelled] = await Promise.all([
      store.list(kind, { labelSelector: { [HOST_LABEL]: host } }),
      store.list(kind, { labelSelector: { [HOST_LABEL]: null } }),
    ]);
    out[kind] = labelled.items.length + unlabelled.items.filter((o) => hostOf(o) === host).length;
  }
  return out;
}
