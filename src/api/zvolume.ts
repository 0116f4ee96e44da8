import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, Userid, described, resourceSchema, type Resource } from './common.js';
import { DEFAULT_HOST } from './host.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

export const Fcp = Type.String({ pattern: '^[0-9A-Fa-f]{4}$', description: 'FCP device number, 4 hex digits' });
export const Wwpn = Type.String({ pattern: '^0x[0-9A-Fa-f]{16}$', description: '0x and 16 hex digits' });

/** The connection of a volume attach/detach (docs/rest-interface.md §1.5 connection_info), one field each. */
export const ZVolumeSpec = Type.Object(
  {
    host: Type.Optional(Type.String({ default: DEFAULT_HOST, description: 'name of the ZHost' })),
    assignerId: described(Userid, 'z/VM userid of the guest the volume is attached to'),
    fcpTemplateId: Type.Optional(Type.String({ maxLength: 36, description: 'the ZFcpTemplate the FCPs come from' })),
    fcps: Type.Array(Fcp, { minItems: 1, uniqueItems: true, description: 'zvm_fcp: one FCP device per path' }),
    targetWwpns: Type.Array(Wwpn, { minItems: 1, uniqueItems: true, description: 'WWPNs of the storage target ports, 0x and 16 hex digits each' }),
    lun: Type.String({ pattern: '^0x[0-9A-Fa-f]{16}$', description: 'target LUN, 0x and 16 hex digits' }),
    osVersion: Type.String({ minLength: 1, description: 'guest OS, e.g. rhel8.6' }),
    multipath: Type.Boolean({ description: 'the guest uses the paths through multipath' }),
    mountPoint: Type.Optional(Type.String({ maxLength: 4096, description: 'where the guest mounts the volume' })),
    isRootVolume: Type.Optional(Type.Boolean({ default: false, description: 'boot volume: only the FCP bookkeeping, no z/VM or OS work' })),
    doRollback: Type.Optional(Type.Boolean({ default: true, description: 'undo every finished phase when a later one fails' })),
    updateConnectionsOnly: Type.Optional(Type.Boolean({ default: false, description: 'on detach, update the connection counts only; do not undedicate' })),
  },
  { additionalProperties: false, description: 'a SCSI volume attached to a guest through FCP devices' },
);
export type ZVolumeSpec = Static<typeof ZVolumeSpec>;

export const ZVolumeStatus = Type.Object({
  ...CommonStatusFields,
  host: Type.Optional(Type.String({ description: 'the ZHost the volume is attached on' })),
  /** the FCPs this volume holds a connection on, and which of them it dedicated */
  fcps: Type.Optional(Type.Array(
    Type.Object({
      fcp: Type.String({ description: 'FCP device number' }),
      dedicated: Type.Boolean({ description: 'this volume dedicated the FCP to the guest' }),
    }),
    { description: 'the FCPs this volume holds a connection on' },
  )),
  /** what the FCP ledger counts: the ZFcpTemplate reconciler derives each row's connections from these */
  connections: Type.Optional(Type.Array(
    Type.Object({
      fcp: Type.String({ description: 'FCP device number' }),
      template: Type.String({ description: 'the ZFcpTemplate whose ledger lists the FCP' }),
    }),
    { description: 'the FCP connections this volume holds; the templates\' ledgers count them' },
  )),
  attachedAt: Type.Optional(Type.String({ description: 'when the attach finished' })),
}, { description: 'the attachment as the controller made it' });
export type ZVolumeStatus = Static<typeof ZVolumeStatus>;

export const ZVolumeSchema = resourceSchema('ZVolume', ZVolumeSpec, ZVolumeStatus);
export type ZVolume = Resource<ZVolumeSpec, ZVolumeStatus>;

export const VOLUME_FINALIZER = 'zvm.dev/volume-detach';

const ATTACH = 'a parameter of the attach, which ran once; detach and attach again (a new ZVolume) to change it';

/** ZVolume: the attach runs once with its connection; what the detach reads stays live (docs/fields.md). */
export const ZVOLUME_FIELDS: LifecycleTable = {
  host: fixed('the volume is attached on one host'),
  assignerId: fixed('the guest the volume is attached to; another guest is another attachment'),
  lun: fixed(ATTACH),
  fcps: fixed(ATTACH),
  fcpTemplateId: fixed(ATTACH),
  targetWwpns: fixed(ATTACH),
  osVersion: fixed(ATTACH),
  multipath: live('read by the detach (DELETE /guests/volumes sets it with the detach request)'),
  mountPoint: fixed(ATTACH),
  isRootVolume: live('read by the detach (a root volume has only the FCP bookkeeping undone)'),
  doRollback: live('read when a phase of the attach or detach fails'),
  updateConnectionsOnly: live('read by the detach'),
};
