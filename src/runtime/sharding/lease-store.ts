import { createHash } from 'node:crypto';
import type { KubeConfig, V1Lease, V1LeaseList } from '@kubernetes/client-node';
import { NotFoundError } from '../../errors.js';
import { toStoreError } from '../../store/kube/index.js';
import { leaseRecordOf, leaseRequest } from '../kube-lease.js';
import type { LeaseRecord } from '../leader-election.js';
import type { ObservedLease } from './lease-observer.js';

/**
 * The Leases of one sharded deployment: a heartbeat per replica and one per host, all in the operator
 * namespace, found by label. Writes carry the resourceVersion they were based on, so that two
 * replicas racing for one host end in one success and one ConflictError.
 */
export type LeaseRole = 'replica' | 'host';

export interface ShardLease extends ObservedLease {
  role: LeaseRole;
  /** the host name, or the replica identity */
  subject: string;
}

export interface ShardLeaseStore {
  list(signal: AbortSignal): Promise<ShardLease[]>;
  create(role: LeaseRole, subject: string, record: LeaseRecord, signal: AbortSignal): Promise<ShardLease>;
  /** replaces the record of `lease` at its resourceVersion */
  update(lease: ShardLease, record: LeaseRecord, signal: AbortSignal): Promise<ShardLease>;
  /** deletes `lease` if it is still at its resourceVersion; gone already is fine */
  delete(lease: ShardLease, signal: AbortSignal): Promise<void>;
}

export const SHARD_GROUP_LABEL = 'zvm.dev/shard-group';
export const LEASE_ROLE_LABEL = 'zvm.dev/lease-role';
export const LEASE_SUBJECT_ANNOTATION = 'zvm.dev/lease-subject';

/** A DNS-1123 name for a Lease: readable prefix, plus a hash when the subject had to be altered or cut. */
export function shardLeaseName(group: string, role: LeaseRole, subject: string): string {
  const base = `${group}-${role}-${subject}`.toLowerCase();
  const clean = base.replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  if (clean === base && clean.length <= 253) return clean;
  const hash = createHash('sha256').update(subject).digest('hex').slice(0, 10);
  return `${clean.slice(0, 200).replace(/[^a-z0-9]+$/, '')}-${hash}`;
}

export interface KubeShardLeaseStoreOptions {
  kubeconfig: KubeConfig;
  namespace: string;
  /** names the deployment: the Leases of another operator in the same namespace are not ours */
  group: string;
}

export function createKubeShardLeaseStore(o: KubeShardLeaseStoreOptions): ShardLeaseStore {
  const ns = o.namespace;
  const call = (method: string, name: string | undefined, signal: AbortSignal, body?: unknown, labelSelector?: string): Promise<unknown> => leaseRequest(o.kubeconfig, method, ns, name, signal, body, labelSelector);

  function fromServer(lease: V1Lease): ShardLease | undefined {
    const role = lease.metadata?.labels?.[LEASE_ROLE_LABEL];
    const subject = lease.metadata?.annotations?.[LEASE_SUBJECT_ANNOTATION];
    if ((role !== 'replica' && role !== 'host') || !subject || !lease.metadata?.name) return undefined;
    return { name: lease.metadata.name, role, subject, record: leaseRecordOf(lease), resourceVersion: lease.metadata.resourceVersion ?? '' };
  }

  function body(role: LeaseRole, subject: string, record: LeaseRecord, resourceVersion?: string): V1Lease {
    const metadata = {
      name: shardLeaseName(o.group, role, subject),
      namespace: ns,
      labels: { [SHARD_GROUP_LABEL]: o.group, [LEASE_ROLE_LABEL]: role },
      annotations: { [LEASE_SUBJECT_ANNOTATION]: subject },
      ...(resourceVersion ? { resourceVersion } : {}),
    };
    // MicroTime fields travel as the strings microTime() formats (client-node's Date has 3 digits)
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec: record as V1Lease['spec'] };
  }

  function parsed(lease: V1Lease, what: string): ShardLease {
    const s = fromServer(lease);
    if (!s) throw toStoreError(new Error('the apiserver returned a Lease without its labels'), what, 'read');
    return s;
  }

  return {
    async list(signal) {
      try {
        const list = (await call('GET', undefined, signal, undefined, `${SHARD_GROUP_LABEL}=${o.group}`)) as V1LeaseList;
        return (list.items ?? []).map(fromServer).filter((l): l is ShardLease => l !== undefined);
      } catch (err) {
        throw toStoreError(err, `Leases of ${ns}/${o.group}`, 'read');
      }
    },
    async create(role, subject, record, signal) {
      const what = `Lease ${ns}/${shardLeaseName(o.group, role, subject)}`;
      try {
        return parsed((await call('POST', undefined, signal, body(role, subject, record))) as V1Lease, what);
      } catch (err) {
        throw toStoreError(err, what, 'create');
      }
    },
    async update(lease, record, signal) {
      const what = `Lease ${ns}/${lease.name}`;
      try {
        const sent = body(lease.role, lease.subject, record, lease.resourceVersion);
        return parsed((await call('PUT', lease.name, signal, sent)) as V1Lease, what);
      } catch (err) {
        throw toStoreError(err, what, 'write');
      }
    },
    async delete(lease, signal) {
      try {
        await call('DELETE', lease.name, signal, { preconditions: { resourceVersion: lease.resourceVersion } });
      } catch (err) {
        const failure = toStoreError(err, `Lease ${ns}/${lease.name}`, 'write');
        if (!(failure instanceof NotFoundError)) throw failure;
      }
    },
  };
}
