import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, resourceSchema, type Resource } from './common.js';
import { guestClassValues } from './zguest.js';
import { live, type LifecycleTable } from './lifecycle.js';

/**
 * Size and shape by name (cluster-scoped): the defaults a ZGuest naming it in spec.class takes for
 * the fields it leaves out. A guest records the class as it was when it was created (status.class),
 * so an edit here changes no existing guest until that guest sets spec.classRevision to the new one.
 */
export const ZGuestClassSpec = guestClassValues('guest defaults: CPUs, memory, profile, disk layout (root disk first), CPU pool and share, NICs, OS version');
export type ZGuestClassSpec = Static<typeof ZGuestClassSpec>;

/** The most revisions a class keeps for guests and pools that still ask for an older one. */
export const CLASS_REVISIONS_KEPT = 10;

/**
 * A class's revision is its metadata.generation. The ZGuestClass reconciler records each one here (like
 * KubeVirt's ControllerRevisions), so a guest or pool created later can still ask for it; guests and pools
 * only read them, and take a new revision once it is recorded.
 */
export const ZGuestClassStatus = Type.Object(
  {
    observedGeneration: CommonStatusFields.observedGeneration,
    conditions: CommonStatusFields.conditions,
    revisions: Type.Optional(Type.Array(
      Type.Object(
        {
          revision: Type.Integer({ description: 'the metadata.generation of this revision' }),
          values: guestClassValues('the class values of this revision'),
        },
        { description: 'one recorded revision of the class' },
      ),
      { maxItems: CLASS_REVISIONS_KEPT, description: 'recorded revisions, oldest first: the current one, those guests or pools use, then the newest others, ten at most' },
    )),
  },
  { description: 'the revisions guests and pools may take' },
);
export type ZGuestClassStatus = Static<typeof ZGuestClassStatus>;

export const ZGuestClassSchema = resourceSchema('ZGuestClass', ZGuestClassSpec, ZGuestClassStatus);
export type ZGuestClass = Resource<ZGuestClassSpec, ZGuestClassStatus>;

const REVISION = 'a new class revision (metadata.generation); a guest or pool takes it when its spec.classRevision names it';

/** ZGuestClass: each edit is a revision; guests move to it by choice (docs/fields.md). */
export const ZGUEST_CLASS_FIELDS: LifecycleTable = Object.fromEntries(
  Object.keys(ZGuestClassSpec.properties).map((f) => [f, live(REVISION, true)]),
);
