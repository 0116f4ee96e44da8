import type { TObject } from '@sinclair/typebox';
import { ZGUEST_RULES, ZGuestSpec, ZGuestStatus } from './zguest.js';
import { ZGUEST_FIELDS } from './zguest-fields.js';
import type { LifecycleTable } from './lifecycle.js';
import { ZGUEST_CLASS_FIELDS, ZGuestClassSpec, ZGuestClassStatus } from './zguest-class.js';
import { ZGUEST_POOL_FIELDS, ZGUEST_POOL_RULES, ZGuestPoolSpec, ZGuestPoolStatus } from './zguest-pool.js';
import { ZHOST_FIELDS, ZHostSpec, ZHostStatus } from './zhost.js';
import { ZVSWITCH_FIELDS, ZVSWITCH_RULES, ZVswitchSpec, ZVswitchStatus } from './zvswitch.js';
import { ZFCP_TEMPLATE_FIELDS, ZFCP_TEMPLATE_RULES, ZFcpTemplateSpec, ZFcpTemplateStatus } from './zfcp-template.js';
import { ZVOLUME_FIELDS, ZVolumeSpec, ZVolumeStatus } from './zvolume.js';
import { ZGUEST_ACTION_FIELDS, ZGuestActionSpec, ZGuestActionStatus } from './zguest-action.js';
import { ZIMAGE_FIELDS, ZIMAGE_RULES, ZImageSpec, ZImageStatus } from './zimage.js';
import { API_VERSION, GROUP, SERVED_VERSIONS, VERSION } from './common.js';
import { CAPI_CONTRACT_LABEL, FOREIGN_KINDS, INFRA_GROUP, INFRA_VERSION } from './capi-common.js';
import { ZVMCLUSTER_FIELDS, ZVMCLUSTER_RULES, ZVMCLUSTER_TEMPLATE_FIELDS, ZVMClusterSpec, ZVMClusterStatus, ZVMClusterTemplateSpec, ZVMClusterTemplateStatus } from './zvm-cluster.js';
import { ZVMMACHINE_FIELDS, ZVMMACHINE_RULES, ZVMMACHINE_TEMPLATE_FIELDS, ZVMMachineSpec, ZVMMachineStatus, ZVMMachineTemplateSpec, ZVMMachineTemplateStatus } from './zvm-machine.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean';
  jsonPath: string;
  priority?: number;
}

/**
 * A rule spanning several spec fields: `cel` (self = spec) goes into the CRD as an
 * x-kubernetes-validations entry, `holds` is the same rule for validateResource.
 */
export interface CrossFieldRule<S = unknown> {
  /** schema path reported when the rule fails, e.g. '/spec/router' */
  path: string;
  message: string;
  cel: string;
  holds(spec: S): boolean;
}

/**
 * Where a resource's host comes from (runtime/sharding/labeler.ts turns it into the `zvm.dev/host`
 * label that a sharded replica selects on): `self` its own name (a ZHost), `spec` spec.host,
 * `firstPoolHost` a pool's first listed or selected host, `guest` the host of the ZGuest that
 * spec.guest names, `machine` the host a ZVMMachine's guest will use (api/zvm-machine.ts machineHost), `none` no host (a cluster-wide kind; a sharded replica never reconciles it).
 */
export type HostFrom = 'self' | 'spec' | 'firstPoolHost' | 'guest' | 'machine' | 'none';

/**
 * How REST reads the controller's verdict on a write (rest/write-and-wait.ts): `Synced` = Synced=False;
 * `phase` = phase Failed; `lastError` = Synced=False carrying a hypervisor error (other Synced=False
 * reasons are progress); `never` = it does not fail a write. `module` names feilong's module (modID)
 * of the envelope. null: REST writes no object of this kind.
 */
export interface RestVerdict {
  failedBy: 'Synced' | 'phase' | 'lastError' | 'never';
  module: 'guest' | 'network' | 'volume' | 'image' | 'sdkwsgi';
}

/**
 * Everything the store, validators, CRD generator, sharding, host deletion and REST need to know
 * about one kind: its one row (docs/architecture.md §7.2 "Adding a kind"). The per-kind facts are
 * required fields, so a kind cannot be declared without them; `test/unit/controllers/kind-rows.test.ts`
 * ties them to the controller registry.
 */
export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames: string[];
  spec: TObject;
  status: TObject;
  printerColumns: PrinterColumn[];
  /** how a change to each spec field is handled (api/lifecycle.ts): fixed ones are refused after creation */
  fields: LifecycleTable;
  /** rules ajv cannot express; run after the schema passes */
  crossFieldRules?: CrossFieldRule<never>[];
  /** the scale subresource (`kubectl scale`) */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** its host, for sharding (HostFrom) */
  host: HostFrom;
  /** a ZHost being deleted waits until no resource of this kind is left on it */
  holdsHostDeletion: boolean;
  /** how REST reads its controller's verdict; null when REST writes none of it */
  restVerdict: RestVerdict | null;
  /** `own`: a row in controllers/registry.ts reconciles it; `none`: read by others only (say why beside it) */
  controller: 'own' | 'none';
  /** API group and version; default API_VERSION, every version of SERVED_VERSIONS (the Cluster API kinds: infrastructure.cluster.x-k8s.io) */
  group?: string;
  version?: string;
  /** labels on the generated CRD (Cluster API reads its contract versions from one) */
  crdLabels?: Record<string, string>;
  /** `kubectl get <category>` lists the kind; default ['zvm'] */
  categories?: string[];
  /** another project's kind the operator only reads (FOREIGN_KINDS): no CRD, no schema */
  foreign?: boolean;
}

/** The Cluster API kinds: our infrastructure group, the contract label, listed with `kubectl get cluster-api` too. */
const capi = { group: INFRA_GROUP, version: INFRA_VERSION, crdLabels: { [CAPI_CONTRACT_LABEL]: INFRA_VERSION }, categories: ['zvm', 'cluster-api'] };

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const ready: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };

export const KINDS: Record<string, KindDefinition> = {
  ZHost: {
    kind: 'ZHost',
    plural: 'zhosts',
    singular: 'zhost',
    scope: 'Cluster',
    shortNames: ['zh'],
    spec: ZHostSpec,
    status: ZHostStatus,
    fields: ZHOST_FIELDS,
    host: 'self',
    holdsHostDeletion: false,
    restVerdict: null,
    controller: 'own',
    printerColumns: [
      { name: 'Simulated', type: 'boolean', jsonPath: '.status.simulated' },
      { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint' },
      { name: 'Version', type: 'string', jsonPath: '.status.hypervisorVersion' },
      // logged-on guests, current within one drift period; the directory count every 5 minutes (drift.ts DIRECTORY_PERIOD_MS)
      { name: 'Guests', type: 'integer', jsonPath: '.status.activeGuests' },
      { name: 'Defined', type: 'integer', jsonPath: '.status.guestCount', priority: 1 },
      { name: 'Held By', type: 'string', jsonPath: '.status.heldBy' },
      ready,
      age,
    ],
  },
  ZGuest: {
    kind: 'ZGuest',
    plural: 'zguests',
    singular: 'zguest',
    scope: 'Namespaced',
    shortNames: ['zg'],
    spec: ZGuestSpec,
    status: ZGuestStatus,
    fields: ZGUEST_FIELDS,
    crossFieldRules: ZGUEST_RULES,
    host: 'spec',
    holdsHostDeletion: true,
    restVerdict: { failedBy: 'Synced', module: 'guest' },
    controller: 'own',
    printerColumns: [
      { name: 'Userid', type: 'string', jsonPath: '.spec.userid' },
      { name: 'Host', type: 'string', jsonPath: '.status.host' },
      { name: 'Class', type: 'string', jsonPath: '.spec.class' },
      { name: 'Class Rev', type: 'integer', jsonPath: '.status.class.revision', priority: 1 },
      { name: 'Power', type: 'string', jsonPath: '.status.powerState' },
      // what runs, not what the spec asks: a change waiting for the next logon shows under Restart
      { name: 'CPUs', type: 'integer', jsonPath: '.status.vcpus' },
      { name: 'Memory', type: 'string', jsonPath: '.status.memory' },
      { name: 'Restart', type: 'string', jsonPath: '.status.conditions[?(@.type=="RestartRequired")].status' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      // the last image deploy; -o wide, as it is empty on most guests
      { name: 'Progress', type: 'string', jsonPath: '.status.progress.summary', priority: 1 },
      ready,
      // why it is (not) Ready: GuestRunning, HostNotFound, ... in the default view
      { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
      age,
    ],
  },
  ZGuestClass: {
    kind: 'ZGuestClass',
    plural: 'zguestclasses',
    singular: 'zguestclass',
    scope: 'Cluster',
    shortNames: ['zgc'],
    spec: ZGuestClassSpec,
    status: ZGuestClassStatus,
    fields: ZGUEST_CLASS_FIELDS,
    // its reconciler records each revision; guests and pools read them. No host: with sharding the replica
    // holding the unassigned Lease runs it (controllers/registry.ts, hostless)
    host: 'none',
    holdsHostDeletion: false,
    restVerdict: null,
    controller: 'own',
    printerColumns: [
      { name: 'CPUs', type: 'integer', jsonPath: '.spec.vcpus' },
      { name: 'Memory', type: 'string', jsonPath: '.spec.memory' },
      { name: 'OS', type: 'string', jsonPath: '.spec.osVersion' },
      // what a guest's spec.classRevision names to take the class as it is now
      { name: 'Revision', type: 'integer', jsonPath: '.metadata.generation' },
      // True once the current revision is recorded, so guests and pools can take it
      ready,
      age,
    ],
  },
  ZGuestPool: {
    kind: 'ZGuestPool',
    plural: 'zguestpools',
    singular: 'zguestpool',
    scope: 'Namespaced',
    shortNames: ['zgpool', 'zgp'],
    spec: ZGuestPoolSpec,
    status: ZGuestPoolStatus,
    fields: ZGUEST_POOL_FIELDS,
    crossFieldRules: ZGUEST_POOL_RULES,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    // runs where its first host is held; its guests carry their own hosts
    host: 'firstPoolHost',
    holdsHostDeletion: false,
    restVerdict: null,
    controller: 'own',
    printerColumns: [
      { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
      { name: 'Updated', type: 'integer', jsonPath: '.status.updatedReplicas' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Class', type: 'string', jsonPath: '.spec.template.spec.class' },
      { name: 'Image', type: 'string', jsonPath: '.spec.template.spec.image' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      age,
    ],
  },
  ZVswitch: {
    kind: 'ZVswitch',
    plural: 'zvswitches',
    singular: 'zvswitch',
    scope: 'Cluster',
    shortNames: ['zvs'],
    spec: ZVswitchSpec,
    status: ZVswitchStatus,
    fields: ZVSWITCH_FIELDS,
    crossFieldRules: ZVSWITCH_RULES,
    host: 'spec',
    holdsHostDeletion: true,
    restVerdict: { failedBy: 'Synced', module: 'network' },
    controller: 'own',
    printerColumns: [
      { name: 'Switch', type: 'string', jsonPath: '.status.switchName' },
      // effective values as the host reports them, defaults included
      { name: 'Type', type: 'string', jsonPath: '.status.networkType' },
      { name: 'VLAN', type: 'string', jsonPath: '.status.vlan' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      ready,
      age,
    ],
  },
  ZFcpTemplate: {
    kind: 'ZFcpTemplate',
    plural: 'zfcptemplates',
    singular: 'zfcptemplate',
    scope: 'Cluster',
    shortNames: ['zfcpt'],
    spec: ZFcpTemplateSpec,
    status: ZFcpTemplateStatus,
    fields: ZFCP_TEMPLATE_FIELDS,
    crossFieldRules: ZFCP_TEMPLATE_RULES,
    host: 'spec',
    holdsHostDeletion: true,
    restVerdict: { failedBy: 'never', module: 'volume' },
    controller: 'own',
    printerColumns: [
      { name: 'Template', type: 'string', jsonPath: '.spec.name' },
      { name: 'Devices', type: 'string', jsonPath: '.spec.fcpDevices' },
      { name: 'Default', type: 'boolean', jsonPath: '.spec.hostDefault' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      ready,
      age,
    ],
  },
  ZVolume: {
    kind: 'ZVolume',
    plural: 'zvolumes',
    singular: 'zvolume',
    scope: 'Namespaced',
    shortNames: ['zvol'],
    spec: ZVolumeSpec,
    status: ZVolumeStatus,
    fields: ZVOLUME_FIELDS,
    host: 'spec',
    holdsHostDeletion: true,
    restVerdict: { failedBy: 'lastError', module: 'volume' },
    controller: 'own',
    printerColumns: [
      { name: 'Guest', type: 'string', jsonPath: '.spec.assignerId' },
      { name: 'LUN', type: 'string', jsonPath: '.spec.lun' },
      { name: 'FCPs', type: 'string', jsonPath: '.spec.fcps' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      ready,
      age,
    ],
  },
  ZGuestAction: {
    kind: 'ZGuestAction',
    plural: 'zguestactions',
    singular: 'zguestaction',
    scope: 'Namespaced',
    shortNames: ['zga'],
    spec: ZGuestActionSpec,
    status: ZGuestActionStatus,
    fields: ZGUEST_ACTION_FIELDS,
    // short-lived: it does not hold its host's deletion
    host: 'guest',
    holdsHostDeletion: false,
    restVerdict: { failedBy: 'phase', module: 'guest' },
    controller: 'own',
    printerColumns: [
      { name: 'Guest', type: 'string', jsonPath: '.spec.guest' },
      { name: 'Action', type: 'string', jsonPath: '.spec.action' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      age,
    ],
  },
  ZImage: {
    kind: 'ZImage',
    plural: 'zimages',
    singular: 'zimage',
    scope: 'Cluster',
    shortNames: ['zimg'],
    spec: ZImageSpec,
    status: ZImageStatus,
    fields: ZIMAGE_FIELDS,
    crossFieldRules: ZIMAGE_RULES,
    host: 'spec',
    holdsHostDeletion: true,
    restVerdict: { failedBy: 'phase', module: 'image' },
    controller: 'own',
    printerColumns: [
      { name: 'OS', type: 'string', jsonPath: '.status.osVersion' },
      { name: 'Units', type: 'string', jsonPath: '.status.diskSizeUnits' },
      { name: 'Type', type: 'string', jsonPath: '.status.type' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Progress', type: 'string', jsonPath: '.status.progress.summary' },
      ready,
      age,
    ],
  },
  ZVMCluster: {
    kind: 'ZVMCluster',
    plural: 'zvmclusters',
    singular: 'zvmcluster',
    scope: 'Namespaced',
    shortNames: ['zvmc'],
    spec: ZVMClusterSpec,
    status: ZVMClusterStatus,
    crossFieldRules: ZVMCLUSTER_RULES,
    fields: ZVMCLUSTER_FIELDS,
    host: 'firstPoolHost',
    holdsHostDeletion: false,
    restVerdict: null,
    controller: 'own',
    ...capi,
    printerColumns: [
      { name: 'Cluster', type: 'string', jsonPath: ".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']" },
      { name: 'Provisioned', type: 'boolean', jsonPath: '.status.initialization.provisioned' },
      { name: 'Endpoint', type: 'string', jsonPath: '.spec.controlPlaneEndpoint.host', priority: 1 },
      ready,
      age,
    ],
  },
  ZVMClusterTemplate: {
    kind: 'ZVMClusterTemplate',
    plural: 'zvmclustertemplates',
    singular: 'zvmclustertemplate',
    scope: 'Namespaced',
    shortNames: ['zvmct'],
    spec: ZVMClusterTemplateSpec,
    status: ZVMClusterTemplateStatus,
    fields: ZVMCLUSTER_TEMPLATE_FIELDS,
    host: 'none',
    holdsHostDeletion: false,
    restVerdict: null,
    // read by Cluster API's topology controller (ClusterClass), not reconciled
    controller: 'none',
    ...capi,
    printerColumns: [
      { name: 'Hosts', type: 'string', jsonPath: '.spec.template.spec.hosts' },
      { name: 'Endpoint', type: 'string', jsonPath: '.spec.template.spec.controlPlaneEndpoint.host' },
      age,
    ],
  },
  ZVMMachine: {
    kind: 'ZVMMachine',
    plural: 'zvmmachines',
    singular: 'zvmmachine',
    scope: 'Namespaced',
    shortNames: ['zvmm'],
    spec: ZVMMachineSpec,
    status: ZVMMachineStatus,
    crossFieldRules: ZVMMACHINE_RULES,
    fields: ZVMMACHINE_FIELDS,
    host: 'machine',
    // its ZGuest holds the host's deletion
    holdsHostDeletion: false,
    restVerdict: null,
    controller: 'own',
    ...capi,
    printerColumns: [
      { name: 'Cluster', type: 'string', jsonPath: ".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']" },
      { name: 'Provider ID', type: 'string', jsonPath: '.spec.providerID' },
      { name: 'Provisioned', type: 'boolean', jsonPath: '.status.initialization.provisioned' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      ready,
      age,
    ],
  },
  ZVMMachineTemplate: {
    kind: 'ZVMMachineTemplate',
    plural: 'zvmmachinetemplates',
    singular: 'zvmmachinetemplate',
    scope: 'Namespaced',
    shortNames: ['zvmmt'],
    spec: ZVMMachineTemplateSpec,
    status: ZVMMachineTemplateStatus,
    fields: ZVMMACHINE_TEMPLATE_FIELDS,
    host: 'none',
    holdsHostDeletion: false,
    restVerdict: null,
    // read by Cluster API's MachineSet and KubeadmControlPlane controllers, which clone it
    controller: 'none',
    ...capi,
    printerColumns: [
      { name: 'Class', type: 'string', jsonPath: '.spec.template.spec.class' },
      { name: 'Image', type: 'string', jsonPath: '.spec.template.spec.image' },
      age,
    ],
  },
};

/** group/version of a kind's objects */
export function apiVersionOf(def: KindDefinition): string {
  if (!def.group && !def.version) return API_VERSION;
  return def.group ? `${def.group}/${def.version}` : (def.version ?? VERSION);
}

export function groupOf(def: KindDefinition): string {
  return def.group ?? GROUP;
}

/** The versions a kind is served at: ours at every one of SERVED_VERSIONS, another group's kind at its own. */
export function servedVersionsOf(def: KindDefinition): readonly string[] {
  return def.version ? [def.version] : SERVED_VERSIONS;
}

/** A kind with the version a request named (kubectl's `zguests.v1alpha1.zvm.dev`); none: the storage version. */
export interface NamedResource {
  def: KindDefinition;
  version?: string;
}

/**
 * A resource name as kubectl takes it: a kind name (resolveKind), alone, with its group
 * (`zguests.zvm.dev`) or with a served version and its group (`zguests.v1alpha1.zvm.dev`).
 */
export function resolveResource(name: string): NamedResource | undefined {
  const dot = name.indexOf('.');
  const def = resolveKind(dot < 0 ? name : name.slice(0, dot));
  if (!def || dot < 0) return def && { def };
  const qualifier = name.slice(dot + 1).toLowerCase();
  if (qualifier === groupOf(def)) return { def };
  const version = servedVersionsOf(def).find((v) => qualifier === `${v}.${groupOf(def)}`);
  return version ? { def, version } : undefined;
}

/** Our kinds, then the foreign ones the operator reads (Cluster, Machine, Secret). */
export function lookupKind(kind: string): KindDefinition | undefined {
  return KINDS[kind] ?? FOREIGN_KINDS[kind];
}

export type KindName = keyof typeof KINDS;

export function kindDefinition(kind: string): KindDefinition {
  const def = lookupKind(kind);
  if (!def) throw new Error(`unknown kind ${kind}`);
  return def;
}

/** Accepts what kubectl accepts: the kind, its plural, singular or a short name, any case. */
export function resolveKind(name: string): KindDefinition | undefined {
  const n = name.toLowerCase();
  return Object.values(KINDS).find((d) => d.kind.toLowerCase() === n || d.plural === n || d.singular === n || d.shortNames.includes(n));
}
