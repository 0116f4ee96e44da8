import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, MemorySize, Patterns, Userid, Vdev, resourceSchema, type Resource } from './common.js';
import { REMOTE_HOST_PATTERN } from './zimage.js';

/** A CP SHARE value as the reference's schema accepts it: ABSolute 1-100 (decimals allowed) % or RELative 1-10000. */
export const SHARE_PATTERN = '^(?:(?:ABS|ABSO|ABSOL|ABSOLU|ABSOLUT|ABSOLUTE)\\s*(?:100|[1-9][0-9]?)(?:\\.[0-9]+)?%|(?:REL|RELA|RELAT|RELATI|RELATIV|RELATIVE)\\s*(?:10000|[1-9][0-9]{0,3}))$';

export const DiskFormat = Type.Union(
  ['ext2', 'ext3', 'ext4', 'swap', 'xfs', 'none'].map((f) => Type.Literal(f)),
  { description: 'file system; none means no format and no partition table' },
);
export type DiskFormat = 'ext2' | 'ext3' | 'ext4' | 'swap' | 'xfs' | 'none';

export const GuestDisk = Type.Object(
  {
    size: Type.String({ pattern: Patterns.diskSize, description: 'M or G suffix, or a bare cylinder/block count' }),
    format: Type.Optional(DiskFormat),
    vdev: Type.Optional(Vdev),
    pool: Type.Optional(Type.String({ pattern: Patterns.diskPool, description: 'ECKD:<name> or FBA:<name>' })),
    boot: Type.Optional(Type.Boolean({ description: 'the root disk that receives the deployed image' })),
  },
  { additionalProperties: false },
);
export type GuestDisk = Static<typeof GuestDisk>;

export const GuestNic = Type.Object(
  {
    vdev: Vdev,
    mac: Type.Optional(Type.String({ pattern: Patterns.mac })),
    vswitch: Type.Optional(Type.String({ minLength: 1, maxLength: 8 })),
    vlan: Type.Optional(Type.Integer({ minimum: -1, maximum: 4094 })),
    nicId: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type GuestNic = Static<typeof GuestNic>;

export const GuestInterface = Type.Object(
  {
    ipAddr: Type.Optional(Type.String()),
    cidr: Type.Optional(Type.String()),
    gatewayAddr: Type.Optional(Type.String()),
    dnsAddr: Type.Optional(Type.Array(Type.String())),
    nicVdev: Type.Optional(Vdev),
    macAddr: Type.Optional(Type.String({ pattern: Patterns.mac })),
    nicId: Type.Optional(Type.String()),
    osaDevice: Type.Optional(Vdev),
    hostname: Type.Optional(Type.String()),
  },
  { additionalProperties: false, dependencies: { ipAddr: ['cidr'] } },
);

/** PUT /guests/{userid}/disks: how the guest OS formats and mounts an additional disk (feilong-rest.md §3.8). */
// a fresh schema object per use, so the generated CRD YAML carries no anchors/aliases
const diskConfigSchema = () =>
  Type.Object(
    {
      vdev: Vdev,
      format: DiskFormat,
      mntdir: Type.String({ minLength: 1, maxLength: 255, description: 'mount directory in the guest; swap for a swap disk' }),
    },
    { additionalProperties: false },
  );
export const GuestDiskConfig = diskConfigSchema();
export type GuestDiskConfig = Static<typeof GuestDiskConfig>;

export const ZGuestSpec = Type.Object(
  {
    userid: Userid,
    host: Type.Optional(Type.String({ default: 'default', description: 'name of the ZHost' })),
    vcpus: Type.Integer({ minimum: 1, maximum: 64 }),
    maxCpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'MACHINE ESA maximum' })),
    memory: MemorySize,
    maxMemory: Type.Optional(MemorySize),
    profile: Type.Optional(Userid),
    account: Type.Optional(Type.String({ maxLength: 128 })),
    comments: Type.Optional(Type.Array(Type.String({ maxLength: 68 }))),
    ipl: Type.Optional(
      Type.Object(
        {
          device: Type.Optional(Type.String({ minLength: 1, maxLength: 8 })),
          param: Type.Optional(Type.String({ maxLength: 64 })),
          loadparm: Type.Optional(Type.String({ maxLength: 8 })),
        },
        { additionalProperties: false },
      ),
    ),
    loaddev: Type.Optional(
      Type.Object(
        {
          portname: Type.Optional(Type.String({ pattern: Patterns.hex16 })),
          lun: Type.Optional(Type.String({ pattern: Patterns.hex16 })),
          alterdev: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    dedicate: Type.Optional(Type.Array(Vdev, { uniqueItems: true })),
    cpuPool: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{1,8}$', description: 'CPU pool the guest is scheduled in: COMMAND SCHEDULE * WITHIN POOL <cpuPool> (feilong cschedule); set at creation' })),
    share: Type.Optional(Type.String({ maxLength: 64, pattern: SHARE_PATTERN, description: "CPU share, e.g. 'RELATIVE 200' or 'ABSOLUTE 10%' (feilong cshare / cpu_share); default RELATIVE 100 per virtual CPU" })),
    relocationDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{1,8}$', description: 'SSI relocation domain: COMMAND SET VMRELOCATE * DOMAIN <relocationDomain> (feilong rdomain); set at creation' })),
    pciFunctions: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,4}$' }), { maxItems: 16, description: "PCI functions 'fid:vdev', each COMMAND ATTACH PCIF <fid> * AS <vdev> (feilong pcif); set at creation" })),
    disks: Type.Optional(Type.Array(GuestDisk, { description: 'root disk first' })),
    diskConfig: Type.Optional(Type.Array(GuestDiskConfig, { description: 'guest-OS configuration of additional disks; recorded in status (needs an in-guest agent to act)' })),
    image: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'ZImage deployed onto the root disk' })),
    imageDeploy: Type.Optional(
      Type.Object(
        {
          vdev: Type.Optional(Vdev),
          transportFiles: Type.Optional(Type.String({ pattern: '^/[^\\x00]*$', maxLength: 1024, description: 'config drive punched to the reader at deploy; a path on remoteHost or on the management guest' })),
          remoteHost: Type.Optional(Type.String({ pattern: REMOTE_HOST_PATTERN, description: 'user@host holding transportFiles' })),
        },
        { additionalProperties: false, description: 'how spec.image is deployed (target disk, transport files)' },
      ),
    ),
    nics: Type.Optional(Type.Array(GuestNic)),
    network: Type.Optional(
      Type.Object(
        { osVersion: Type.String({ minLength: 1 }), interfaces: Type.Array(GuestInterface) },
        { additionalProperties: false },
      ),
    ),
    powerState: Type.Optional(
      Type.Union([Type.Literal('On'), Type.Literal('Off'), Type.Literal('Paused')], { default: 'On' }),
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
  { additionalProperties: false },
);
export type ZGuestSpec = Static<typeof ZGuestSpec>;

export const CreatedDisk = Type.Object({
  vdev: Type.String(),
  size: Type.String(),
  format: Type.Optional(Type.String()),
  isBootDisk: Type.Optional(Type.Boolean()),
  diskPool: Type.String(),
});
export type CreatedDisk = Static<typeof CreatedDisk>;

export const ZGuestStatus = Type.Object({
  ...CommonStatusFields,
  host: Type.Optional(Type.String()),
  powerState: Type.Optional(Type.String({ description: 'observed: on, off or paused' })),
  vcpus: Type.Optional(Type.Integer()),
  memory: Type.Optional(Type.String()),
  disks: Type.Optional(Type.Array(CreatedDisk)),
  /** NICs this resource manages, as the directory shows them; vlan is the requested id (the NICDEF written here carries none) */
  nics: Type.Optional(Type.Array(Type.Object({
    vdev: Type.String(), vswitch: Type.Optional(Type.String()), mac: Type.Optional(Type.String()),
    vlan: Type.Optional(Type.Integer()), nicId: Type.Optional(Type.String()),
  }))),
  /** spec.network as recorded (the guest-OS files are not generated: no in-guest agent) */
  network: Type.Optional(Type.Object({ osVersion: Type.String(), interfaces: Type.Array(GuestInterface) })),
  configuredDisks: Type.Optional(Type.Array(diskConfigSchema())),
  deployedImage: Type.Optional(Type.String()),
  lastHandledRebootAt: Type.Optional(Type.String()),
  lastHandledResetAt: Type.Optional(Type.String()),
});
export type ZGuestStatus = Static<typeof ZGuestStatus>;

export const ZGuestSchema = resourceSchema('ZGuest', ZGuestSpec, ZGuestStatus);
export type ZGuest = Resource<ZGuestSpec, ZGuestStatus>;

/** One-shot imperative verbs (DESIGN.md §3): annotation tokens acknowledged in status. */
export const Annotations = {
  rebootRequestedAt: 'zvm.dev/reboot-requested-at',
  resetRequestedAt: 'zvm.dev/reset-requested-at',
} as const;

export const FINALIZER = 'zvm.dev/guest-protection';
