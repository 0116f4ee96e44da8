import { CLASS_FIELDS, CLASS_REVISIONS_KEPT, type GuestClassValues, type Resource, type ZGuest, type ZGuestClass, type ZGuestSpec, type ZGuestStatus } from '../../api/index.js';
import type { StateStore } from '../../store/port.js';
import type { Problem } from './steps.js';

/** A guest spec once its class is applied: what planning and status work from. */
export type ResolvedGuestSpec = Omit<ZGuestSpec, 'vcpus' | 'memory' | 'network'> & {
  vcpus: number;
  memory: string;
  network?: NonNullable<ZGuestSpec['network']> & { osVersion: string };
};
export type ResolvedZGuest = Resource<ResolvedGuestSpec, ZGuestStatus>;
export type ClassBinding = NonNullable<ZGuestStatus['class']>;

export interface BindingPlan {
  /** the class revision the guest follows now; undefined: no class */
  binding: ClassBinding | undefined;
  /** the binding differs from status.class and must be recorded before the host is touched */
  record: boolean;
  problem?: Problem;
}

/**
 * Pure: which class revision the guest follows. The recorded one stays until the guest names another
 * class or asks (spec.classRevision) for a revision other than the recorded one; only then is the class
 * read as it is now, and only when it is at exactly that revision.
 */
export function planClassBinding(guest: ZGuest, cls: ZGuestClass | undefined): BindingPlan {
  const name = guest.spec.class;
  const recorded = guest.status?.class;
  if (!name) return { binding: undefined, record: recorded !== undefined };
  const kept = recorded?.name === name ? recorded : undefined;
  const wanted = guest.spec.classRevision;
  if (kept && (wanted === undefined || wanted === kept.revision)) return { binding: kept, record: false };
  if (!cls) return { binding: kept, record: false, problem: { reason: 'ClassNotFound', severity: kept ? 'blocked' : 'error', message: `ZGuestClass ${name} is not known` } };
  const revision = cls.metadata.generation ?? 1;
  const values = wanted === undefined || wanted === revision ? cls.spec : cls.status?.revisions?.find((r) => r.revision === wanted)?.values;
  if (!values) {
    const message = `ZGuestClass ${name} has no revision ${wanted} (current ${revision}; older ones exist only once a guest or pool took them)`;
    return { binding: kept, record: false, problem: { reason: 'ClassRevisionUnavailable', severity: kept ? 'blocked' : 'error', message } };
  }
  return { binding: { name, revision: wanted ?? revision, values: structuredClone(values) }, record: true };
}

/** Pure: the class status with its current revision kept for later guests, or undefined when it is already there. */
export function withCurrentRevision(cls: ZGuestClass): ZGuestClass['status'] | undefined {
  const revision = cls.metadata.generation ?? 1;
  const revisions = cls.status?.revisions ?? [];
  if (revisions.some((r) => r.revision === revision)) return undefined;
  return { ...cls.status, revisions: [...revisions, { revision, values: structuredClone(cls.spec) }].slice(-CLASS_REVISIONS_KEPT) };
}

/** Pure: the spec with each class field it leaves out taken from the class values; lists are taken whole. */
export function resolveGuestSpec(spec: ZGuestSpec, values: GuestClassValues | undefined): { spec: ResolvedGuestSpec } | { problem: Problem } {
  const out: ZGuestSpec = { ...spec };
  const from = values ?? {};
  for (const field of CLASS_FIELDS) {
    if (out[field] === undefined && from[field] !== undefined) (out as Record<string, unknown>)[field] = structuredClone(from[field]);
  }
  if (out.network && out.network.osVersion === undefined && from.osVersion) out.network = { ...out.network, osVersion: from.osVersion };
  const missing = [out.vcpus === undefined && 'vcpus', out.memory === undefined && 'memory', out.network && !out.network.osVersion && 'network.osVersion'].filter(Boolean);
  const { vcpus, memory, network } = out;
  if (vcpus === undefined || memory === undefined || (network && network.osVersion === undefined)) {
    return { problem: { reason: 'ClassIncomplete', severity: 'error', message: `${missing.join(', ')} set by neither the spec nor ${spec.class ? `ZGuestClass ${spec.class}` : 'a class'}` } };
  }
  return { spec: { ...out, vcpus, memory, network: network && { ...network, osVersion: network.osVersion ?? '' } } };
}

/** Pure: the guest with its class applied, or why it cannot be. */
export function resolveGuest(guest: ZGuest, binding: ClassBinding | undefined): { guest: ResolvedZGuest } | { problem: Problem } {
  const resolved = resolveGuestSpec(guest.spec, binding?.values);
  return 'problem' in resolved ? resolved : { guest: { ...guest, spec: resolved.spec } };
}

/**
 * For the paths that read neither CPUs nor memory (a deletion, a status without a host observation):
 * the class as recorded where there is one; values nobody gave are placeholders nothing reads.
 */
export function resolveLoosely(guest: ZGuest): ResolvedZGuest {
  const values = guest.status?.class?.values;
  const resolved = resolveGuestSpec(guest.spec, values);
  if ('spec' in resolved) return { ...guest, spec: resolved.spec };
  const { network: _unresolved, ...spec } = guest.spec;
  return { ...guest, spec: { ...spec, vcpus: spec.vcpus ?? values?.vcpus ?? 1, memory: spec.memory ?? values?.memory ?? '1M' } };
}

/** Keeps the class's current revision in its status before anything records it, so a later guest can still ask for it. */
export async function rememberClassRevision(store: StateStore, cls: ZGuestClass): Promise<void> {
  const status = withCurrentRevision(cls);
  // a concurrent writer makes this conflict: the reconcile is retried and finds the revision there
  if (status) await store.updateStatus<ZGuestClass>({ ...cls, status });
}
