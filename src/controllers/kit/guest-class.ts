/**
 * ZGuestClass values as guests take them: the ZGuest controller resolves each guest's spec with its
 * class, the pool controller sizes the guests it will make. Both only read the revisions the
 * ZGuestClass reconciler records, and take the class's current one once it is recorded.
 */
import { CLASS_FIELDS, type GuestClassValues, type Resource, type ZGuestClass, type ZGuestSpec, type ZGuestStatus } from '../../api/index.js';

/** How soon a guest or pool looks again for a class revision its reconciler has not recorded yet. */
export const CLASS_REVISION_WAIT_MS = 500;

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

/** Pure: the class's reconciler has recorded this revision, so a guest or pool may take it (and a later one still can). */
export function isRevisionRecorded(cls: ZGuestClass, revision: number): boolean {
  return (cls.status?.revisions ?? []).some((r) => r.revision === revision);
}
