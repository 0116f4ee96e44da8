import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, resourceSchema, type Resource } from './common.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

/** VMRELOCATE tuning (feilong's live_migrate_vm `parms`). */
export const LiveMigrateParms = Type.Object(
  {
    maxTotal: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds the whole relocation may take' })),
    maxQuiesce: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds the guest may be stopped' })),
    immediate: Type.Optional(Type.Boolean({ description: 'IMMEDIATE: start the relocation at once' })),
    forceArch: Type.Optional(Type.Boolean({ description: 'FORCE ARCHITECTURE' })),
    forceDomain: Type.Optional(Type.Boolean({ description: 'FORCE DOMAIN' })),
    forceStorage: Type.Optional(Type.Boolean({ description: 'FORCE STORAGE' })),
  },
  { additionalProperties: false, description: 'VMRELOCATE tuning' },
);
export type LiveMigrateParms = Static<typeof LiveMigrateParms>;

export const LiveMigrate = Type.Object(
  {
    destination: Type.String({ pattern: '^[A-Za-z0-9]{1,8}$', description: 'system name of the SSI member to move to' }),
    operation: Type.Union([Type.Literal('move'), Type.Literal('test')], { default: 'move', description: 'test only checks that the move would work' }),
    parms: Type.Optional(LiveMigrateParms),
  },
  { additionalProperties: false, description: 'where and how to move the guest; needed when action is LiveMigrate' },
);
export type LiveMigrate = Static<typeof LiveMigrate>;

export const ZGuestActionSpec = Type.Object(
  {
    guest: Type.String({ minLength: 1, maxLength: 253, description: 'name of the ZGuest in the same namespace' }),
    action: Type.Literal('LiveMigrate', { description: 'the one-off operation to run' }),
    liveMigrate: Type.Optional(LiveMigrate),
    ttlSecondsAfterFinished: Type.Optional(Type.Integer({ minimum: 0, default: 3600, description: 'the action is deleted this long after it finished' })),
  },
  { additionalProperties: false, description: 'a one-off operation on a ZGuest' },
);
export type ZGuestActionSpec = Static<typeof ZGuestActionSpec>;

export type ZGuestActionPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export const ZGuestActionStatus = Type.Object({
  ...CommonStatusFields,
  /** the z/VM userid acted on, once resolved */
  userid: Type.Optional(Type.String({ description: 'the z/VM userid acted on' })),
  startedAt: Type.Optional(Type.String({ description: 'when the action started' })),
  completedAt: Type.Optional(Type.String({ description: 'when the action finished' })),
  message: Type.Optional(Type.String({ description: 'the outcome, in words' })),
}, { description: 'progress and outcome of the action' });
export type ZGuestActionStatus = Static<typeof ZGuestActionStatus>;

export const ZGuestActionSchema = resourceSchema('ZGuestAction', ZGuestActionSpec, ZGuestActionStatus);
export type ZGuestAction = Resource<ZGuestActionSpec, ZGuestActionStatus>;

/** Set on a ZGuest once a live migration moved it to another SSI member: it no longer runs on this host. */
export const RELOCATED_TO_ANNOTATION = 'zvm.dev/relocated-to';

/** ZGuestAction: executed once; a changed request is a new action (docs/fields.md). */
export const ZGUEST_ACTION_FIELDS: LifecycleTable = {
  guest: fixed('the action runs once on its guest: another guest is another action'),
  action: fixed('the action runs once: another verb is another action'),
  liveMigrate: fixed('the action runs once with these parameters: other ones are another action'),
  ttlSecondsAfterFinished: live('the garbage collection of the finished action is planned with it'),
};
