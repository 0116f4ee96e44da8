import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { NotFoundError } from '../errors.js';
import { kubeRequest } from '../store/kube/http.js';
import { toStoreError } from '../store/kube/index.js';
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
 * One request about the Leases of `namespace` (the collection, or `name` in it), as plain JSON over
 * the process's shared connections: renewals run every retry period, and client-node's generated API
 * (its serializers, node-fetch, middleware) cost a controller more than the request itself.
 */
export async function leaseRequest(kubeconfig: KubeConfig, method: string, namespace: string, name: string | undefined, signal: AbortSignal, body?: unknown, labelSelector?: string): Promise<unknown> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  return kubeRequest(kubeconfig, { method, path, signal, body, query: { labelSelector } });
}

/**
 * The elector's LeaseApi over coordination.k8s.io/v1. MicroTime fields travel as the strings the
 * elector formats, and come back as the server's strings.
 */
export function createKubeLeaseApi(o: KubeLeaseApiOptions): LeaseApi {
  const call = async (method: string, signal: AbortSignal, body?: V1Lease, name?: string): Promise<V1Lease> => (await leaseRequest(o.kubeconfig, method, o.namespace, name, signal, body)) as V1Lease;
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
        return fromServer(await call('GET', signal, undefined, o.name));
      } catch (err) {
        const failure = toStoreError(err, what, 'read');
        if (failure instanceof NotFoundError) return undefined;
        throw failure;
      }
    },
    async create(record, signal) {
      try {
        return fromServer(await call('POST', signal, toBody(record)));
      } catch (err) {
        throw toStoreError(err, what, 'create');
      }
    },
    async update(lease, signal) {
      try {
        const body = toBody(lease.record, lease.resourceVersion);
        return fromServer(await call('PUT', signal, body, o.name));
      } catch (err) {
        throw toStoreError(err, what, 'write');
      }
    },
  };
}
