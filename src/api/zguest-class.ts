import { Type, type Static } from '@sinclair/typebox';
import { resourceSchema, type Resource } from './common.js';
import { guestClassValues } from './zguest.js';

/**
 * Size and shape by name (cluster-scoped): the defaults a ZGuest naming it in spec.class takes for
 * the fields it leaves out. A guest records the class as it was when it was created (status.class),
 * so an edit here changes no existing guest until that guest sets spec.classRevision to the new one.
 */
export const ZGuestClassSpec = guestClassValues('guest defaults: CPUs, memory, profile, disk layout (root disk first), CPU pool and share, NICs, OS version');
export type ZGuestClassSpec = Static<typeof ZGuestClassSpec>;

/** Nothing reconciles a class: its revision is metadata.generation. */
export const ZGuestClassStatus = Type.Object({}, { description: 'unused: a class is read by the guests that name it' });
export type ZGuestClassStatus = Static<typeof ZGuestClassStatus>;

export const ZGuestClassSchema = resourceSchema('ZGuestClass', ZGuestClassSpec, ZGuestClassStatus);
export type ZGuestClass = Resource<ZGuestClassSpec, ZGuestClassStatus>;
