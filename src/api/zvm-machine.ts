/**
 * ZVMMachine: the Cluster API InfraMachine of a z/VM guest (contract v1beta2). It owns one ZGuest built
 * from its spec, so the guest controller does the z/VM work; the ZVMMachine decides the host, the userid
 * and the bootstrap delivery, and reports what Cluster API reads (providerID, provisioned, addresses).
 */
import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, type Resource } from './common.js';
import { INFRA_API_VERSION, infraTemplateSpec } from './capi-common.js';
import type { CrossFieldRule } from './kinds.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';
import { ZGuestSpec } from './zguest.js';

/** The ZVMMachine picks these itself (host, userid), or they have no meaning for a node (adopt, power, deploy files). */
const GUEST_FIELDS_LEFT_OUT = ['userid', 'host', 'powerState', 'adopt', 'deletionPolicy', 'imageDeploy'] as const;
const guestFields = Type.Omit(ZGuestSpec, [...GUEST_FIELDS_LEFT_OUT]).properties;

/** Userids are the prefix and a hash of the machine's namespace/name filling 8 characters (the same after a move). */
export const MACHINE_USERID_PREFIX_PATTERN = '^[A-Za-z][A-Za-z0-9]{0,3}$';
export const DEFAULT_MACHINE_USERID_PREFIX = 'K8S';
/** `zvm://<ZHost>/<USERID>`: what the node's kubelet is given as --provider-id. */
export const PROVIDER_ID_PATTERN = '^zvm://[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Z0-9@#$_-]{1,8}$';

export const ZVMMachineSpec = Type.Object(
  {
    providerID: Type.Optional(Type.String({ minLength: 1, maxLength: 512, pattern: PROVIDER_ID_PATTERN, description: 'zvm://<ZHost>/<USERID>, set by the provider once the guest is chosen; the node\'s spec.providerID' })),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'ZHost of the guest; default the Machine\'s failure domain, else the ZVMCluster\'s first failure domain' })),
    failureDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'the failure domain (a ZHost) to use when the Machine names none' })),
    useridPrefix: Type.Optional(Type.String({ pattern: MACHINE_USERID_PREFIX_PATTERN, default: DEFAULT_MACHINE_USERID_PREFIX, description: 'userid prefix (1-4 characters); the rest is a hash of the machine\'s namespace and name' })),
    ...guestFields,
  },
  { additionalProperties: false, description: 'the guest a Cluster API Machine runs on: any ZGuest field but userid, host and power, plus where it goes' },
);
export type ZVMMachineSpec = Static<typeof ZVMMachineSpec>;

/** Cluster API replaces a machine instead of changing it: a new template rolls out new Machines. */
const REPLACED = 'the guest is built from it once; Cluster API replaces a machine (a new template rolls out new Machines) instead of changing one';

/** How a change to each ZVMMachine field is handled (api/lifecycle.ts). */
export const ZVMMACHINE_FIELDS: LifecycleTable = {
  providerID: live('set by the provider from the guest\'s host and userid; another value is put back'),
  host: live('set by the provider once the guest is placed; another value is put back (the guest stays where it is)'),
  failureDomain: fixed('the guest is placed once, when it is defined'),
  useridPrefix: fixed('the userid is chosen once, when the guest is defined'),
  ...Object.fromEntries(Object.keys(guestFields).map((f) => [f, fixed(REPLACED)])),
};

export const ZVMMACHINE_RULES: CrossFieldRule<ZVMMachineSpec>[] = [
  {
    path: '/spec',
    message: 'vcpus and memory are required unless spec.class names a ZGuestClass',
    cel: 'has(self.class) || (has(self.vcpus) && has(self.memory))',
    holds: (s) => s.class !== undefined || (s.vcpus !== undefined && s.memory !== undefined),
  },
];

export const MACHINE_ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'] as const;
export const MachineAddress = Type.Object({
  type: Type.Union(MACHINE_ADDRESS_TYPES.map((t) => Type.Literal(t)), { description: 'Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS' }),
  address: Type.String({ minLength: 1, maxLength: 256, description: 'the address' }),
});
export type MachineAddress = Static<typeof MachineAddress>;

export const ZVMMachineStatus = Type.Object(
  {
    ...CommonStatusFields,
    initialization: Type.Optional(Type.Object(
      { provisioned: Type.Optional(Type.Boolean({ description: 'the guest is defined, its bootstrap data is in its reader and it is logged on; never goes back to false' })) },
      { description: 'what Cluster API waits for (contract v1beta2)' },
    )),
    addresses: Type.Optional(Type.Array(MachineAddress, { maxItems: 32, description: 'the node\'s addresses, from the guest\'s network configuration' })),
    failureDomain: Type.Optional(Type.String({ description: 'the ZHost the guest is on' })),
    userid: Type.Optional(Type.String({ description: 'the guest\'s z/VM userid' })),
    guest: Type.Optional(Type.String({ description: 'the ZGuest this machine owns (same namespace)' })),
  },
  { description: 'what Cluster API reads, and the guest behind it' },
);
export type ZVMMachineStatus = Static<typeof ZVMMachineStatus>;

export type ZVMMachine = Resource<ZVMMachineSpec, ZVMMachineStatus>;

/** InfraMachineTemplate: MachineSets and KubeadmControlPlane clone template.spec into each new ZVMMachine. */
export const ZVMMachineTemplateSpec = infraTemplateSpec(Type.Omit(ZVMMachineSpec, ['providerID']), 'each ZVMMachine', 'the ZVMMachine that Cluster API clones for each Machine of a MachineDeployment or control plane');
export type ZVMMachineTemplateSpec = Static<typeof ZVMMachineTemplateSpec>;

export const ZVMMACHINE_TEMPLATE_FIELDS: LifecycleTable = {
  template: live('read when Cluster API makes a new Machine from it; machines already made keep what they were made from', true),
};

export const ZVMMachineTemplateStatus = Type.Object(
  {
    capacity: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'resources of one machine (cpu, memory), for autoscaling from zero' })),
    nodeInfo: Type.Optional(Type.Object(
      {
        architecture: Type.Optional(Type.String({ description: 's390x' })),
        operatingSystem: Type.Optional(Type.String({ description: 'linux' })),
      },
      { description: 'the node a machine of this template becomes' },
    )),
  },
  { description: 'facts about the machines of this template' },
);
export type ZVMMachineTemplateStatus = Static<typeof ZVMMachineTemplateStatus>;
export type ZVMMachineTemplate = Resource<ZVMMachineTemplateSpec, ZVMMachineTemplateStatus>;

/**
 * The ZHost a machine's guest goes to: the machine's own host, else its Machine's failure domain, else its
 * own failure domain, else the cluster's first failure domain, else default. The sharding labeler and the
 * reconciler decide it the same way (the labeler only once the Machine, and without an explicit host the
 * ZVMCluster's failure domains, are known).
 */
export function machineHost(
  zm: { spec: { host?: string; failureDomain?: string } },
  machine: { spec: { failureDomain?: string } } | undefined,
  zvmCluster: { status?: { failureDomains?: { name: string }[] } } | undefined,
): string {
  return zm.spec.host ?? machine?.spec.failureDomain ?? zm.spec.failureDomain ?? zvmCluster?.status?.failureDomains?.[0]?.name ?? 'default';
}

export const ZVMMACHINE_FINALIZER = 'zvmmachine.infrastructure.cluster.x-k8s.io';
/** Set on the owned ZGuest: the sha256 of the bootstrap payload punched to its reader (so a move or a rerun never punches twice). */
export const BOOTSTRAP_PUNCHED_ANNOTATION = 'infrastructure.cluster.x-k8s.io/bootstrap-punched';
export const MACHINE_API_VERSION = INFRA_API_VERSION;
