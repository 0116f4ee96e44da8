import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { feilongErrors } from '../feilong-error.js';
import type { GuestCreateInput } from '../guests/mapping.js';
import { CreatedDiskOutput, DiskList, Hex16, MemorySize, PositiveInteger, Userid, UseridParams, Vdev } from '../schemas.js';
import { validateOrThrow } from '../validation.js';
import type { RouteDeps } from './route-deps.js';
import { SHARE_PATTERN } from '../../api/zguest.js';

const Str255 = Type.String({ maxLength: 255 });

/**
 * schema `guest.create` (docs/rest-interface.md §1.5); vcpus/memory are JSON integers only (§9.5).
 * Our extension: `class` names a ZGuestClass, which then gives what the request leaves out.
 */
export const GuestCreate = Type.Object(
  {
    userid: Userid,
    vcpus: Type.Optional(PositiveInteger),
    memory: Type.Optional(Type.Integer({ minimum: 1, description: 'MB' })),
    class: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'extension: a ZGuestClass giving vcpus, memory and the other fields this request leaves out' })),
    user_profile: Type.Optional(Type.Union([Userid, Type.Null()])),
    disk_list: Type.Optional(DiskList),
    max_cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    max_mem: Type.Optional(MemorySize),
    ipl_from: Type.Optional(Str255),
    ipl_param: Type.Optional(Str255),
    ipl_loadparam: Type.Optional(Str255),
    dedicate_vdevs: Type.Optional(Type.Array(Vdev, { uniqueItems: true })),
    loaddev: Type.Optional(Type.Object(
      { portname: Type.Optional(Hex16), lun: Type.Optional(Hex16), alterdev: Type.Optional(Type.String()) },
      { additionalProperties: false },
    )),
    account: Type.Optional(Type.String({ maxLength: 128 })),
    comments: Type.Optional(Type.Array(Type.String())),
    comment_list: Type.Optional(Type.Array(Type.String())),
    cschedule: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{0,8}$' })),
    cshare: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: SHARE_PATTERN })),
    rdomain: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^\\w{0,8}$' })),
    // 'fid:vdev' as the SDK requires (the reference's REST schema \w{,9} forbids the ':', §9.4)
    pcif: Type.Optional(Type.String({ minLength: 3, maxLength: 13, pattern: '^[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,4}$' })),
  },
  { additionalProperties: false, description: 'vcpus and memory are required unless class names a ZGuestClass' },
);
export const GuestCreateBody = Type.Object({ guest: GuestCreate }, { additionalProperties: false });
/** Without a class the reference's rule holds: vcpus and memory are required (answered in its words). */
export const ClasslessGuestCreateBody = Type.Object({ guest: Type.Object({ vcpus: PositiveInteger, memory: Type.Integer() }) });

const tags = ['guests'];

/** GET|POST /guests, GET|DELETE /guests/{userid}. */
const guestRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests }) => {
  app.post('/guests', {
    schema: { summary: 'Create a guest (a ZGuest resource) and wait until it is provisioned', tags, body: GuestCreateBody, response: { 200: Envelope(CreatedDiskOutput) } },
  }, async (req) => {
    if (req.body.guest.class === undefined) validateOrThrow(ClasslessGuestCreateBody, req.body);
    return ok(await guests.create(req.body.guest as GuestCreateInput));
  });

  app.get('/guests', { schema: { summary: 'Userids of the managed guests', tags, response: { 200: Envelope(Type.Array(Type.String())) } } }, async () =>
    ok(await guests.list()));

  app.delete('/guests/:userid', {
    schema: { summary: 'Delete a guest and wait until it is gone', tags, params: UseridParams, response: { 200: Envelope(EmptyOutput) } },
  }, async (req) => {
    await guests.remove(req.params.userid);
    return ok();
  });

  app.get('/guests/:userid', {
    schema: { summary: 'Directory entry of a managed guest (unmasked)', tags, params: UseridParams, response: { 200: Envelope(Type.Object({ user_direct: Type.Array(Type.String()) })) } },
  }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const state = await guests.hypervisorFor(guest).describeGuest(guest.spec.userid);
    if (!state && guests.isBeingCreated(guest)) throw feilongErrors.inProgress(`guest '${guest.spec.userid.toUpperCase()}' is being created`, 'GET /guests lists it');
    if (!state) throw feilongErrors.guestNotInDirectory(guest.spec.userid);
    return ok({ user_direct: state.directory.lines });
  });
};

export default guestRoutes;
