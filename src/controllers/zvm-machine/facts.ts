/**
 * Pure facts of a ZVMMachine and what Cluster API gave it: its owner Machine and Cluster, whether it is
 * paused, the host and userid of its guest (chosen once, the same after `clusterctl move`), the ZGuest
 * built from its spec, and the node's addresses. No I/O.
 */
import { createHash } from 'node:crypto';
import {
  API_VERSION, CAPI_GROUP, CLUSTER_NAME_LABEL, DEFAULT_MACHINE_USERID_PREFIX, INFRA_API_VERSION, machineHost,
  type MachineAddress, type OwnerReference, type Resource, type ZGuest, type ZGuestSpec, type ZVMCluster, type ZVMMachine,
} from '../../api/index.js';

import { HOST_LABEL } from '../../runtime/sharding/labeler.js';
import { isPaused, type Cluster } from '../kit/index.js';

export { isPaused, type Cluster };

/** The parts of Cluster API's Machine and Cluster (v1beta2) the provider reads. */
export type Machine = Resource<{ clusterName?: string; failureDomain?: string; bootstrap?: { dataSecretName?: string } }, unknown>;
/** The Machine that owns the ZVMMachine (Cluster API sets this owner reference). */
export function ownerMachineName(zm: Resource): string | undefined {
  return zm.metadata.ownerReferences?.find((r) => r.kind === 'Machine' && r.apiVersion.startsWith(`${CAPI_GROUP}/`))?.name;
}

export function clusterNameOf(obj: Resource, machine?: Machine): string | undefined {
  return obj.metadata.labels?.[CLUSTER_NAME_LABEL] ?? machine?.spec.clusterName;
}

/** The ZHost: the one the sharding label already names (decided the same way), else machineHost's choice. */
export function chooseHost(zm: ZVMMachine, machine: Machine, zvmCluster: ZVMCluster | undefined): string {
  return zm.metadata.labels?.[HOST_LABEL] ?? machineHost(zm, machine, zvmCluster);
}

/** Base 36 upper case: characters a userid takes. */
function base36(digest: Buffer, length: number): string {
  let n = BigInt(`0x${digest.toString('hex')}`);
  let out = '';
  while (out.length < length) {
    out += '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'[Number(n % 36n)];
    n /= 36n;
  }
  return out;
}

/** PREFIX and a hash of namespace/name filling 8 characters: the same name gives the same userid (after a move too). */
export function machineUserid(zm: ZVMMachine, salt = 0): string {
  const prefix = (zm.spec.useridPrefix ?? DEFAULT_MACHINE_USERID_PREFIX).toUpperCase();
  const digest = createHash('sha256').update(`${zm.metadata.namespace ?? ''}/${zm.metadata.name}${salt ? `#${salt}` : ''}`).digest();
  return `${prefix}${base36(digest, 8 - prefix.length)}`;
}

export function providerIdOf(host: string, userid: string): string {
  return `zvm://${host}/${userid.toUpperCase()}`;
}

/** Fields of ZVMMachine.spec that are not ZGuest fields. */
const MACHINE_ONLY = ['providerID', 'host', 'failureDomain', 'useridPrefix'] as const;

/**
 * The ZGuest of a ZVMMachine: its guest fields, the host and userid chosen, Stopped until the bootstrap
 * data is in its reader, owned by the ZVMMachine (so `clusterctl move` carries it and deletion cascades).
 */
export function buildGuest(zm: ZVMMachine, host: string, userid: string): ZGuest {
  const guestFields = Object.fromEntries(Object.entries(zm.spec).filter(([k]) => !(MACHINE_ONLY as readonly string[]).includes(k)));
  const owner: OwnerReference = { apiVersion: INFRA_API_VERSION, kind: 'ZVMMachine', name: zm.metadata.name, uid: zm.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  const cluster = zm.metadata.labels?.[CLUSTER_NAME_LABEL];
  return {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: {
      name: zm.metadata.name,
      namespace: zm.metadata.namespace,
      ...(cluster ? { labels: { [CLUSTER_NAME_LABEL]: cluster } } : {}),
      ownerReferences: [owner],
    },
    spec: { ...(guestFields as Partial<ZGuestSpec>), userid, host, powerState: 'Stopped' } as ZGuestSpec,
  };
}

export function ownsGuest(zm: ZVMMachine, guest: ZGuest): boolean {
  return guest.metadata.ownerReferences?.some((r) => r.kind === 'ZVMMachine' && r.name === zm.metadata.name) ?? false;
}

/** The node's addresses from the guest's network configuration: its host names and IPs. */
export function addressesOf(zm: ZVMMachine, guest: ZGuest | undefined): MachineAddress[] {
  const out: MachineAddress[] = [{ type: 'Hostname', address: zm.metadata.name }];
  for (const i of guest?.spec.network?.interfaces ?? []) {
    if (i.hostname && !out.some((a) => a.address === i.hostname)) out.push({ type: 'Hostname', address: i.hostname });
    if (i.ipAddr) out.push({ type: 'InternalIP', address: i.ipAddr });
  }
  return out;
}
