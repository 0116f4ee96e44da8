import type { ZGuest, ZGuestClass, ZGuestStatus } from '../../api/index.js';
import { resolveGuestSpec, type ResolvedZGuest } from '../kit/guest-class.js';
import type { Problem } from './steps.js';

export { isRevisionRecorded, resolveGuestSpec, type ResolvedGuestSpec, type ResolvedZGuest } from '../kit/guest-class.js';

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
    const message = `ZGuestClass ${name} has no revision ${wanted} (current ${revision}; it keeps the revisions in use and the newest others, ten at most)`;
    return { binding: kept, record: false, problem: { reason: 'ClassRevisionUnavailable', severity: kept ? 'blocked' : 'error', message } };
  }
  return { binding: { name, revision: wanted ?? revision, values: structuredClone(values) }, record: true };
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

