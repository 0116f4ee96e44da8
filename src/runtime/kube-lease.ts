import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { NotFoundError } from '../errors.js';
import { toStoreError } from '../store/kube/index.js';
import { callOptions } from './kube-request.js';
import type { LeaseApi, LeaseRecord, VersionedLease } from './leader-election.js';

export interface KubeLeaseApiOptions {
  kubeconfig: KubeConfig;
  namespace: string;
  name: string;
}

/** The holder fields of a Lease as the electors read them (MicroTime kept as the server's string). */
export function leaseRecordOf(lease: V1Lease): LeaseRecord {
  const spec = (lease.spec ?? {}) as Record<string, unknown>;
  const asString = (v: unknown): string | undefined => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : undefined);
  return {
    holderIdentity: spec.holderIdentity as string | undefined,
    leaseDurationSeconds: spec.leaseDurationSeconds as number | undefined,
    acquireTime: asString(spec.acquireTime),
    renewTime: asString(spec.renewTime),
    leaseTransitions: spec.leaseTransitions as number | undefined,
  };
}

/**
 * The elector's LeaseApi over coordination.k8s.io/v1. MicroTime fields travel as the strings the
 * elector formats: client-node passes strings through, while its Date serialisation has 3 digits.
 */
export function createKubeLeaseApi(o: KubeLeaseApiOptions): LeaseApi {
  const api = o.kubeconfig.makeApiClient(CoordinationV1Api);
  const what = `Lease ${o.namespace}/${o.name}`;

  const fromServer = (lease: V1Lease): VersionedLease => ({ record: leaseRecordOf(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' });

  function toBody(record: LeaseRecord, resourceVersion?: string): V1Lease {
    const metadata = { name: o.name, namespace: o.namespace, ...(resourceVersion ? { resourceVersion } : {}) };
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec: record as V1Lease['spec'] };
  }

  return {
    description: `${o.namespace}/${o.name}`,
    async get(signal) {
      try {
        return fromServer(await api.readNamespacedLease({ name: o.name, namespace: o.namespace }, callOptions(signal)));
      } catch (err) {
        const failure = toStoreError(err, what, 'read');
        if (failure instanceof NotFoundError) return undefined;
        throw failure;
      }
    },
    async create(record, signal) {
      try {
        return fromServer(await api.createNamespacedLease({ namespace: o.namespace, body: toBody(record) }, callOptions(signal)));
      } catch (err) {
        throw toStoreError(err, what, 'create');
      }
    },
    async update(lease, signal) {
      try {
        const body = toBody(lease.record, lease.resourceVersion);
        return fromServer(await api.replaceNamespacedLease({ name: o.name, namespace: o.namespace, body }, callOptions(signal)));
      } catch (err) {
        throw toStoreError(err, what, 'write');
      }
    },
  };
}
