/**
 * ZGuestClass values as guests take them: the ZGuest controller resolves each guest's spec with its
 * class, the pool controller sizes the guests it will make; a revision once taken is kept in the class.
 */
import { CLASS_FIELDS, CLASS_REVISIONS_KEPT, type GuestClassValues, type Resource, type ZGuestClass, type ZGuestSpec, type ZGuestStatus } from '../../api/index.js';
import type { StateStore } from '../../store/port.js';

/** A guest spec once its class is applied: what planning and status work from. */
export type ResolvedGuestSpec = Omit<ZGuestSpec, 'vcpus' | 'memory' | 'network'> & {
  vcpus: number;
  memory: string;
  network?: NonNullable<ZGuestSpec['network']> & { osVersion: string };
};
export type ResolvedZGuest = Resource<ResolvedGuestSpec, ZGuestStatus>;

/** Neither the spec nor the class gives a value the guest needs. */
export interface ClassIncomplete {
  reason: 'ClassIncomplete';
  severity: 'error';
  message: string;
}

/** Pure: the spec with each class field it leaves out taken from the class values; lists are taken whole. */
export function resolveGuestSpec(spec: ZGuestSpec, values: GuestClassValues | undefined): { spec: ResolvedGuestSpec } | { problem: ClassIncomplete } {
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

/** Pure: the class status with its current revision kept for later guests, or undefined when it is already there. */
export function withCurrentRevision(cls: ZGuestClass): ZGuestClass['status'] | undefined {
  const revision = cls.metadata.generation ?? 1;
  const revisions = cls.status?.revisions ?? [];
  if (revisions.some((r) => r.revision === revision)) return undefined;
  return { ...cls.status, revisions: [...revisions, { revision, values: structuredClone(cls.spec) }].slice(-CLASS_REVISIONS_KEPT) };
}

/** Keeps the class's current revision in its status before anything records it, so a later guest can still ask for it. */
export async function rememberClassRevision(store: StateStore, cls: ZGuestClass): Promise<void> {
  const status = withCurrentRevision(cls);
  // a concurrent writer makes this conflict: the reconcile is retried and finds the revision there
  if (status) await store.updateStatus<ZGuestClass>({ ...cls, status });
}
