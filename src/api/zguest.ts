import { CloneType, Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, MemorySize, Patterns, Userid, Vdev, described, resourceSchema, type Resource } from './common.js';
import { DEFAULT_HOST } from './host.js';
import type { CrossFieldRule } from './kinds.js';
import { OS_VERSION_PATTERN, REMOTE_HOST_PATTERN } from './names.js';
import { TransferProgressStatus } from './zimage.js';

/** A CP SHARE value as the reference's schema accepts it: ABSolute 1-100 (decimals allowed) % or RELative 1-10000. */
export const SHARE_PATTERN = '^(?:(?:ABS|ABSO|ABSOL|ABSOLU|ABSOLUT|ABSOLUTE)\\s*(?:100|[1-9][0-9]?)(?:\\.[0-9]+)?%|(?:REL|RELA|RELAT|RELATI|RELATIV|RELATIVE)\\s*(?:10000|[1-9][0-9]{0,3}))$';

/** 'relative   200' → 'RELATIVE 200' (how the SHARE statement and SMAPI's SHARE keyword carry it). */
export function normalizeShare(share: string): string {
  return share.trim().toUpperCase().replace(/^([A-Z]+)\s*/, '$1 ').replace(/\s+/g, ' ');
}

export const DiskFormat = Type.Union(
  ['ext2', 'ext3', 'ext4', 'swap', 'xfs', 'none'].map((f) => Type.Literal(f)),
  { description: 'file system; none means no format and no partition table' },
);
export type DiskFormat = 'ext2' | 'ext3' | 'ext4' | 'swap' | 'xfs' | 'none';

/**
 * Wanted power states. Running/Stopped/Paused are plain strings in every YAML version; the older
 * On/Off are booleans to a YAML 1.1 reader (kubectl) unless quoted, so they stay accepted only for the
 * manifests of release 0.1.0 (both served versions share one schema).
 */
export const SPEC_POWER_STATES = ['Running', 'Stopped', 'Paused', 'On', 'Off'] as const;
export type SpecPowerState = (typeof SPEC_POWER_STATES)[number];

/** The power state a spec value asks for, as the host and status spell it. */
export function powerOfSpec(p: SpecPowerState | undefined): 'on' | 'off' | 'paused' {
  if (p === 'Stopped' || p === 'Off') return 'off';
  return p === 'Paused' ? 'paused' : 'on';
}

/**
 * Most entries of a spec list that holds device numbers. Each entry carries a CEL rule ("quote it")
 * that the apiserver's cost estimate prices like a 3 MB string (the value may be an int or a string),
 * times the list's maxItems: 30 keeps every rule, and all of them together, within its budget.
 */
const DEVICE_LIST_MAX = 30;

export const GuestDisk = Type.Object(
  {
    size: Type.String({ pattern: Patterns.diskSize, description: 'M or G suffix, or a bare cylinder/block count' }),
    format: Type.Optional(DiskFormat),
    vdev: Type.Optional(described(Vdev, 'virtual device number of the disk, 1-4 hex digits; default the next free one')),
    pool: Type.Optional(Type.String({ pattern: Patterns.diskPool, description: 'ECKD:<name> or FBA:<name>' })),
    boot: Type.Optional(Type.Boolean({ description: 'the root disk that receives the deployed image' })),
  },
  { additionalProperties: false, description: 'a minidisk to create for the guest' },
);
export type GuestDisk = Static<typeof GuestDisk>;

export const GuestNic = Type.Object(
  {
    vdev: described(Vdev, 'virtual device number of the NIC, 1-4 hex digits'),
    mac: Type.Optional(Type.String({ pattern: Patterns.mac, description: 'MAC address, e.g. 02:00:00:0a:0b:0c; default z/VM assigns one' })),
    vswitch: Type.Optional(Type.String({ minLength: 1, maxLength: 8, description: 'vswitch the NIC is coupled to' })),
    vlan: Type.Optional(Type.Integer({ minimum: -1, maximum: 4094, description: 'VLAN id on the vswitch; -1 means none' })),
    nicId: Type.Optional(Type.String({ maxLength: 128, description: 'caller-chosen id of the NIC (feilong nic_id)' })),
  },
  { additionalProperties: false, description: 'a virtual NIC defined in the guest directory entry' },
);
export type GuestNic = Static<typeof GuestNic>;

export const GuestInterface = Type.Object(
  {
    ipAddr: Type.Optional(Type.String({ description: 'IP address; needs cidr' })),
    cidr: Type.Optional(Type.String({ description: 'network in CIDR form, e.g. 192.168.1.0/24' })),
    gatewayAddr: Type.Optional(Type.String({ description: 'default gateway' })),
    dnsAddr: Type.Optional(Type.Array(Type.String(), { description: 'DNS servers' })),
    nicVdev: Type.Optional(described(Vdev, 'virtual device number of the NIC this interface uses')),
    macAddr: Type.Optional(Type.String({ pattern: Patterns.mac, description: 'MAC address of the interface' })),
    nicId: Type.Optional(Type.String({ description: 'caller-chosen id of the NIC (feilong nic_id)' })),
    osaDevice: Type.Optional(described(Vdev, 'OSA device the interface uses')),
    hostname: Type.Optional(Type.String({ description: 'guest host name' })),
  },
  { additionalProperties: false, dependencies: { ipAddr: ['cidr'] }, description: 'one network interface of the guest OS' },
);

/** PUT /guests/{userid}/disks: how the guest OS formats and mounts an additional disk (docs/rest-interface.md §3.8). */
// a fresh schema object per use, so the generated CRD YAML carries no anchors/aliases
const diskConfigSchema = () =>
  Type.Object(
    {
      vdev: described(Vdev, 'virtual device number of the disk'),
      format: DiskFormat,
      mntdir: Type.String({ minLength: 1, maxLength: 255, description: 'mount directory in the guest; swap for a swap disk' }),
    },
    { additionalProperties: false, description: 'how the guest OS formats and mounts one disk' },
  );
export const GuestDiskConfig = diskConfigSchema();
export type GuestDiskConfig = Static<typeof GuestDiskConfig>;

export const ZGuestSpec = Type.Object(
  {
    userid: described(Userid, 'z/VM userid of the guest, 1-8 characters; fixed after creation'),
    host: Type.Optional(Type.String({ default: DEFAULT_HOST, description: 'name of the ZHost; fixed after creation' })),
    class: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'ZGuestClass giving the defaults of the fields this spec leaves out; recorded at creation (status.class)' })),
    classRevision: Type.Optional(Type.Integer({ minimum: 1, description: 'the ZGuestClass revision (its metadata.generation) the guest follows; set it to the class\'s current revision to take a class edit; default the revision current when the guest was created' })),
    vcpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'virtual CPUs the guest runs with (1-64); required unless the class gives it' })),
    maxCpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'MACHINE ESA maximum' })),
    memory: Type.Optional(described(MemorySize, 'memory the guest logs on with: 1-4 digits and M or G, e.g. 512M or 4G; required unless the class gives it')),
    maxMemory: Type.Optional(described(MemorySize, 'most memory the guest may grow to: 1-4 digits and M or G; default the host default')),
    profile: Type.Optional(described(Userid, 'directory profile the guest INCLUDEs; default the host default')),
    account: Type.Optional(Type.String({ maxLength: 128, description: 'ACCOUNT statement of the directory entry' })),
    comments: Type.Optional(Type.Array(Type.String({ maxLength: 68 }), { description: 'comment lines of the directory entry, up to 68 characters each' })),
    ipl: Type.Optional(
      Type.Object(
        {
          device: Type.Optional(Type.String({ minLength: 1, maxLength: 8, description: 'device number or NSS name to IPL' })),
          param: Type.Optional(Type.String({ maxLength: 64, description: 'PARM string passed to the IPLed system' })),
          loadparm: Type.Optional(Type.String({ maxLength: 8, description: 'LOADPARM of the IPL' })),
        },
        { additionalProperties: false, description: 'IPL statement of the directory entry: what the guest boots at logon' },
      ),
    ),
    loaddev: Type.Optional(
      Type.Object(
        {
          portname: Type.Optional(Type.String({ pattern: Patterns.hex16, description: 'WWPN of the SCSI boot target, up to 16 hex digits' })),
          lun: Type.Optional(Type.String({ pattern: Patterns.hex16, description: 'LUN of the SCSI boot volume, up to 16 hex digits' })),
          alterdev: Type.Optional(Type.String({ description: 'alternate boot device' })),
        },
        { additionalProperties: false, description: 'LOADDEV statement: the SCSI device the guest boots from' },
      ),
    ),
    dedicate: Type.Optional(Type.Array(Vdev, { uniqueItems: true, maxItems: DEVICE_LIST_MAX, description: 'real devices dedicated to the guest (same number inside), 1-4 hex digits each' })),
    cpuPool: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{1,8}$', description: 'CPU pool the guest is scheduled in: COMMAND SCHEDULE * WITHIN POOL <cpuPool> (feilong cschedule); set at creation' })),
    share: Type.Optional(Type.String({ maxLength: 64, pattern: SHARE_PATTERN, description: "CPU share, e.g. 'RELATIVE 200' or 'ABSOLUTE 10%' (feilong cshare / cpu_share); default RELATIVE 100 per virtual CPU" })),
    relocationDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{1,8}$', description: 'SSI relocation domain: COMMAND SET VMRELOCATE * DOMAIN <relocationDomain> (feilong rdomain); set at creation' })),
    pciFunctions: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,4}$' }), { maxItems: 16, description: "PCI functions 'fid:vdev', each COMMAND ATTACH PCIF <fid> * AS <vdev> (feilong pcif); set at creation" })),
    disks: Type.Optional(Type.Array(GuestDisk, { maxItems: DEVICE_LIST_MAX, description: 'root disk first' })),
    diskConfig: Type.Optional(Type.Array(GuestDiskConfig, { maxItems: DEVICE_LIST_MAX, description: 'guest-OS configuration of additional disks; recorded in status (needs an in-guest agent to act)' })),
    image: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'ZImage deployed onto the root disk' })),
    imageDeploy: Type.Optional(
      Type.Object(
        {
          vdev: Type.Optional(described(Vdev, 'disk the image is written to; default the root disk')),
          transportFiles: Type.Optional(Type.String({ pattern: '^/[^\\x00]*$', maxLength: 1024, description: 'config drive punched to the reader at deploy; a path on remoteHost or on the management guest' })),
          remoteHost: Type.Optional(Type.String({ pattern: REMOTE_HOST_PATTERN, description: 'user@host holding transportFiles' })),
        },
        { additionalProperties: false, description: 'how spec.image is deployed (target disk, transport files)' },
      ),
    ),
    nics: Type.Optional(Type.Array(GuestNic, { maxItems: DEVICE_LIST_MAX, description: 'virtual NICs of the guest' })),
    network: Type.Optional(
      Type.Object(
        {
          osVersion: Type.Optional(Type.String({ minLength: 1, description: 'guest OS, e.g. rhel8.6; decides the network file format; required unless the class gives it' })),
          interfaces: Type.Array(GuestInterface, { maxItems: DEVICE_LIST_MAX, description: 'interfaces to configure in the guest OS' }),
        },
        { additionalProperties: false, description: 'guest-OS network configuration; recorded in status (needs an in-guest agent to act)' },
      ),
    ),
    powerState: Type.Optional(
      Type.Union(SPEC_POWER_STATES.map((p) => Type.Literal(p)), {
        default: 'Running',
        description: 'wanted power state: Running, Stopped or Paused (no quotes needed); On and Off (release 0.1.0) are still accepted but must be quoted in YAML',
      }),
    ),
    resizePolicy: Type.Optional(
      Type.Union([Type.Literal('LiveWhenPossible'), Type.Literal('Deferred')], {
        default: 'LiveWhenPossible',
        description: 'resize the running guest when z/VM allows it, else at the next logon',
      }),
    ),
    deletionPolicy: Type.Optional(
      Type.Union([Type.Literal('Delete'), Type.Literal('Orphan')], {
        default: 'Delete',
        description: 'Orphan leaves the guest on the host (deregister)',
      }),
    ),
    adopt: Type.Optional(Type.Boolean({ description: 'take over an existing z/VM guest instead of creating it (register)' })),
  },
  { additionalProperties: false, description: 'the z/VM guest wanted: directory entry, disks, NICs, image and power state' },
);
export type ZGuestSpec = Static<typeof ZGuestSpec>;

/** The fields a ZGuestClass may set; a guest's own value of each wins. */
export const CLASS_FIELDS = ['vcpus', 'maxCpus', 'memory', 'maxMemory', 'profile', 'cpuPool', 'share', 'disks', 'nics'] as const;
const classFields = Type.Partial(Type.Pick(ZGuestSpec, CLASS_FIELDS));

/** A ZGuestClass's values: a fresh schema per use, so the generated CRD YAML carries no anchors. */
export const guestClassValues = (description: string) =>
  CloneType(
    Type.Object(
      { ...classFields.properties, osVersion: Type.Optional(Type.String({ pattern: OS_VERSION_PATTERN, description: 'default of network.osVersion, e.g. rhel9.2' })) },
      { additionalProperties: false, description },
    ),
  );
export const GuestClassValues = guestClassValues('guest defaults of a ZGuestClass');
export type GuestClassValues = Static<typeof GuestClassValues>;

export const ZGUEST_RULES: CrossFieldRule<ZGuestSpec>[] = [
  {
    path: '/spec',
    message: 'vcpus and memory are required unless spec.class names a ZGuestClass',
    cel: 'has(self.class) || (has(self.vcpus) && has(self.memory))',
    holds: (s) => s.class !== undefined || (s.vcpus !== undefined && s.memory !== undefined),
  },
  {
    path: '/spec/network/osVersion',
    message: 'network.osVersion is required unless spec.class names a ZGuestClass',
    cel: '!has(self.network) || has(self.network.osVersion) || has(self.class)',
    holds: (s) => !s.network || s.network.osVersion !== undefined || s.class !== undefined,
  },
  {
    path: '/spec/vcpus',
    message: 'vcpus cannot exceed maxCpus (MACHINE ESA)',
    cel: '!has(self.vcpus) || !has(self.maxCpus) || self.vcpus <= self.maxCpus',
    holds: (s) => s.vcpus === undefined || s.maxCpus === undefined || s.vcpus <= s.maxCpus,
  },
  {
    path: '/spec/classRevision',
    message: 'classRevision needs spec.class',
    cel: '!has(self.classRevision) || has(self.class)',
    holds: (s) => s.classRevision === undefined || s.class !== undefined,
  },
];

export const CreatedDisk = Type.Object(
  {
    vdev: Type.String({ description: 'virtual device number' }),
    size: Type.String({ description: 'size as requested' }),
    format: Type.Optional(Type.String({ description: 'file system it was formatted with' })),
    isBootDisk: Type.Optional(Type.Boolean({ description: 'the root disk' })),
    diskPool: Type.String({ description: 'pool it was allocated from' }),
  },
  { description: 'a minidisk the controller created' },
);
export type CreatedDisk = Static<typeof CreatedDisk>;

export const ZGuestStatus = Type.Object(
  {
    ...CommonStatusFields,
    host: Type.Optional(Type.String({ description: 'the ZHost the guest lives on' })),
    powerState: Type.Optional(Type.String({ description: 'observed: on, off or paused' })),
    vcpus: Type.Optional(Type.Integer({ description: 'virtual CPUs the guest runs with (the directory value while it is off)' })),
    memory: Type.Optional(Type.String({ description: 'memory the guest runs with (the directory value while it is off); RestartRequired says when spec differs' })),
    disks: Type.Optional(Type.Array(CreatedDisk, { description: 'minidisks created for the guest' })),
    /** NICs this resource manages, as the directory shows them; vlan is the requested id (the NICDEF written here carries none) */
    nics: Type.Optional(Type.Array(
      Type.Object({
        vdev: Type.String({ description: 'virtual device number' }),
        vswitch: Type.Optional(Type.String({ description: 'vswitch the NIC is coupled to' })),
        mac: Type.Optional(Type.String({ description: 'MAC address' })),
        vlan: Type.Optional(Type.Integer({ description: 'requested VLAN id' })),
        nicId: Type.Optional(Type.String({ description: 'caller-chosen id of the NIC' })),
      }),
      { description: 'NICs this resource manages, as the directory shows them' },
    )),
    /** spec.network as recorded (the guest-OS files are not generated: no in-guest agent) */
    network: Type.Optional(Type.Object(
      {
        osVersion: Type.String({ description: 'guest OS the configuration is for' }),
        interfaces: Type.Array(GuestInterface, { maxItems: DEVICE_LIST_MAX, description: 'interfaces recorded' }),
      },
      { description: 'spec.network as recorded (no in-guest agent writes the files)' },
    )),
    configuredDisks: Type.Optional(Type.Array(diskConfigSchema(), { maxItems: DEVICE_LIST_MAX, description: 'spec.diskConfig as recorded' })),
    deployedImage: Type.Optional(Type.String({ description: 'the ZImage written onto the root disk' })),
    progress: Type.Optional(described(TransferProgressStatus, 'progress of the last image deploy onto the guest: bytes done and total, and the rate')),
    class: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: 'the ZGuestClass' }),
          revision: Type.Integer({ description: 'its metadata.generation when recorded' }),
          values: guestClassValues('the class values as recorded; the guest follows these, not later class edits'),
        },
        { description: 'the ZGuestClass revision this guest follows (spec.classRevision moves it)' },
      ),
    ),
    pendingPlan: Type.Optional(Type.Object(
      {
        hash: Type.String({ description: 'approve by setting annotation zvm.dev/approved-plan to this value' }),
        generation: Type.Integer({ description: 'the spec generation the plan is for; a newer spec makes a new plan' }),
        steps: Type.Array(Type.String(), { description: 'the host steps held, in order (zvm-operator plan shows their SMAPI calls)' }),
      },
      { description: 'under ZHost spec.changePolicy Approve: the host changes waiting for approval' },
    )),
    loggedOnWith: Type.Optional(Type.Record(Type.String(), Type.String(), {
      description: 'the at-restart fields (docs/fields.md) as the directory held them when the running guest logged on; RestartRequired compares the directory with it',
    })),
    pendingRestart: Type.Optional(Type.Array(Type.String(), { description: 'fields written to the directory that the running guest takes at its next logon' })),
    effective: Type.Optional(Type.Object(
      {
        maxCpus: Type.Integer({ description: 'MACHINE ESA maximum the guest gets' }),
        maxMemory: Type.String({ description: 'maximum storage the guest gets' }),
        profile: Type.String({ description: 'directory profile the guest INCLUDEs' }),
        diskPool: Type.String({ description: 'pool of disks that name none' }),
        rootVdev: Type.String({ description: 'device number of the first disk that names none' }),
      },
      { description: 'values the guest gets where its spec is silent: its class, then its ZHost spec.defaults, then the built-in defaults' },
    )),
    lastHandledRebootAt: Type.Optional(Type.String({ description: 'the reboot-requested-at annotation value last acted on' })),
    lastHandledResetAt: Type.Optional(Type.String({ description: 'the reset-requested-at annotation value last acted on' })),
    lastHandledGrowRootVolumeAt: Type.Optional(Type.String({ description: 'the grow-root-volume-requested-at annotation value last acted on' })),
  },
  { description: 'what the controller observed on the host and did' },
);
export type ZGuestStatus = Static<typeof ZGuestStatus>;

export const ZGuestSchema = resourceSchema('ZGuest', ZGuestSpec, ZGuestStatus);
export type ZGuest = Resource<ZGuestSpec, ZGuestStatus>;

/** One-shot imperative verbs (docs/architecture.md §3): annotation tokens acknowledged in status. */
export const Annotations = {
  rebootRequestedAt: 'zvm.dev/reboot-requested-at',
  resetRequestedAt: 'zvm.dev/reset-requested-at',
  /** one-shot: punch the grow-root-volume script to the guest's reader (feilong grow_root_volume) */
  growRootVolumeRequestedAt: 'zvm.dev/grow-root-volume-requested-at',
  /** the guest OS the grow-root-volume script is for, e.g. rhel8.6 */
  growRootVolumeOsVersion: 'zvm.dev/grow-root-volume-os-version',
} as const;

export const FINALIZER = 'zvm.dev/guest-protection';

/**
 * The uid our owner mark on the host names (zguest/ownership.ts), written with the finalizer before the
 * guest is defined. A copy of the object made elsewhere (`clusterctl move`, a restore from backup) gets a
 * new uid but keeps this annotation, so it still proves the guest is its own without rewriting the host.
 */
export const OWNER_UID_ANNOTATION = 'zvm.dev/owner-uid';
