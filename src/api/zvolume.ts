import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, Userid, resourceSchema, type Resource } from './common.js';

export const Fcp = Type.String({ pattern: '^[0-9A-Fa-f]{4}$', description: 'FCP device number, 4 hex digits' });
export const Wwpn = Type.String({ pattern: '^0x[0-9A-Fa-f]{16}$', description: '0x and 16 hex digits' });

/** The connection of a volume attach/detach (feilong-rest.md §1.5 connection_info), one field each. */
export const ZVolumeSpec = Type.Object(
  {
    host: Type.Optional(Type.String({ default: 'default', description: 'name of the ZHost' })),
    assignerId: Userid,
    fcpTemplateId: Type.Optional(Type.String({ maxLength: 36, description: 'the ZFcpTemplate the FCPs come from' })),
    fcps: Type.Array(Fcp, { minItems: 1, uniqueItems: true, description: 'zvm_fcp: one FCP device per path' }),
    targetWwpns: Type.Array(Wwpn, { minItems: 1, uniqueItems: true }),
    lun: Type.String({ pattern: '^0x[0-9A-Fa-f]{16}$', description: 'target LUN, 0x and 16 hex digits' }),
    osVersion: Type.String({ minLength: 1 }),
    multipath: Type.Boolean(),
    mountPoint: Type.Optional(Type.String({ maxLength: 4096 })),
    isRootVolume: Type.Optional(Type.Boolean({ default: false, description: 'boot volume: only the FCP bookkeeping, no z/VM or OS work' })),
    doRollback: Type.Optional(Type.Boolean({ default: true, description: 'undo every finished phase when a later one fails' })),
    updateConnectionsOnly: Type.Optional(Type.Boolean({ default: false, description: 'on detach, update the connection counts only; do not undedicate' })),
  },
  { additionalProperties: false },
);
export type ZVolumeSpec = Static<typeof ZVolumeSpec>;

export const ZVolumeStatus = Type.Object({
  ...CommonStatusFields,
  host: Type.Optional(Type.String()),
  /** the FCPs this volume holds a connection on, and which of them it dedicated */
  fcps: Type.Optional(Type.Array(Type.Object({ fcp: Type.String(), dedicated: Type.Boolean() }))),
  attachedAt: Type.Optional(Type.String()),
});
export type ZVolumeStatus = Static<typeof ZVolumeStatus>;

export const ZVolumeSchema = resourceSchema('ZVolume', ZVolumeSpec, ZVolumeStatus);
export type ZVolume = Resource<ZVolumeSpec, ZVolumeStatus>;

export const ZVOLUME_IMMUTABLE = ['host', 'assignerId', 'lun', 'fcps'];

export const VOLUME_FINALIZER = 'zvm.dev/volume-detach';
