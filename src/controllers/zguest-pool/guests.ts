import { createHash } from 'node:crypto';
import {
  API_VERSION, POOL_INDEX_ANNOTATION, POOL_LABEL, TEMPLATE_HASH_LABEL, type Resource, type ZGuest, type ZGuestPool,
} from '../../api/index.js';
import { isConditionTrue } from '../conditions.js';

/** Pure facts about one pool guest, as the pool decides from them. */
export const isGuestReady = (g: ZGuest): boolean => isConditionTrue(g.status?.conditions, 'Ready');
export const isGuestDeleting = (g: ZGuest): boolean => Boolean(g.metadata.deletionTimestamp);
/** the userid belongs to someone else on the host: this guest can never become the pool's */
export const isGuestConflicted = (g: ZGuest): boolean => g.status?.phase === 'Conflict';
/** the host refused it (a failing image, a bad class): a rollout must not go on past it */
export const isGuestFailed = (g: ZGuest): boolean => g.status?.phase === 'Failed';
export const indexOf = (g: ZGuest): number => Number(g.metadata.annotations?.[POOL_INDEX_ANNOTATION] ?? 0) || 0;

/** Which guest goes first on a scale down or a rollout: not-Ready ones, then the newest. */
export function byRemovalOrder(a: ZGuest, b: ZGuest): number {
  const ready = Number(isGuestReady(a)) - Number(isGuestReady(b));
  if (ready !== 0) return ready;
  const age = (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '');
  return age !== 0 ? age : indexOf(b) - indexOf(a);
}

/** Keys sorted at every level, so equal templates hash equally whatever order they were written in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** What a guest is made from: the template and the class revision it takes. */
export function templateHash(pool: ZGuestPool, classRevision: number | undefined): string {
  const text = JSON.stringify(canonical({ template: pool.spec.template, classRevision }));
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** PREFIX plus the counter in the characters left of 8: WEB, 7 → WEB00007. */
export function poolUserid(prefix: string, index: number): string {
  return `${prefix.toUpperCase()}${String(index).padStart(8 - prefix.length, '0')}`;
}

export function maxIndex(prefix: string): number {
  return 10 ** (8 - prefix.length) - 1;
}

export interface NewGuest {
  index: number;
  userid: string;
  host: string;
}

/** The ZGuest object of one new pool guest: owned by the pool, labelled with it and with its template. */
export function buildPoolGuest(pool: ZGuestPool, g: NewGuest, hash: string, classRevision: number | undefined): ZGuest {
  const { template } = pool.spec;
  const spec: ZGuest['spec'] = { ...structuredClone(template.spec), userid: g.userid, host: g.host };
  if (template.spec.class && spec.classRevision === undefined && classRevision !== undefined) spec.classRevision = classRevision;
  return {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: {
      name: `${pool.metadata.name}-${g.userid.toLowerCase()}`,
      namespace: pool.metadata.namespace,
      labels: { ...template.metadata?.labels, [POOL_LABEL]: pool.metadata.name, [TEMPLATE_HASH_LABEL]: hash },
      annotations: { [POOL_INDEX_ANNOTATION]: String(g.index) },
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'ZGuestPool', name: pool.metadata.name, uid: pool.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
}

/** The guests this pool owns: its label, and its uid as controller (a recreated pool of the same name owns none of the old ones). */
export function isOwnedBy(pool: ZGuestPool, g: ZGuest): boolean {
  const refs = g.metadata.ownerReferences ?? [];
  return g.metadata.labels?.[POOL_LABEL] === pool.metadata.name && refs.some((r) => r.controller && r.uid === pool.metadata.uid);
}

/** A pool guest's key maps to its pool (same namespace, named by the pool label): its change wakes the pool. */
export function mapGuestToPool(obj: Resource): { namespace?: string; name: string }[] {
  const pool = obj.metadata.labels?.[POOL_LABEL];
  return pool ? [{ namespace: obj.metadata.namespace, name: pool }] : [];
}
