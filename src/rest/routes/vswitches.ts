import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { VswitchUser, ZGuest } from '../../api/index.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { readJsonBody } from '../json-body.js';
import { Bool, Userid } from '../schemas.js';
import { StringEnum, validateOrThrow } from '../validation.js';
import type { RouteDeps } from './route-deps.js';
import { computeVswitchSpec, invalidRequest, vswitchNotFound, type VswitchCreateInput } from './vswitch-mapping.js';
import { createVswitchService } from './vswitch-service.js';

const VswitchName = Type.String({ minLength: 1, maxLength: 8 });
const VlanId = Type.Integer({ minimum: 1, maximum: 4094 });
const Create = Type.Object({
  vswitch: Type.Object({
    name: VswitchName,
    rdev: Type.Optional(Type.Union([Type.Null(), Type.String({ pattern: '^([0-9a-fA-F]{1,4})(\\s+[0-9a-fA-F]{1,4}){0,2}$' })])),
    controller: Type.Optional(Type.String({ pattern: '^(\\*|.{1,8})$' })),
    persist: Type.Optional(Bool),
    connection: Type.Optional(StringEnum(['CONnect', 'CONNECT', 'connect', 'DISCONnect', 'DISCONNECT', 'disconnect', 'NOUPLINK', 'nouplink'])),
    queue_mem: Type.Optional(Type.Integer({ minimum: 1, maximum: 8 })),
    router: Type.Optional(StringEnum(['NONrouter', 'NONROUTER', 'nonrouter', 'PRIrouter', 'PRIROUTER', 'prirouter'])),
    network_type: Type.Optional(StringEnum(['IP', 'ip', 'ETHernet', 'ethernet', 'ETHERNET'])),
    vid: Type.Optional(Type.Union([StringEnum(['UNAWARE', 'unaware', 'AWARE', 'aware']), VlanId])),
    port_type: Type.Optional(StringEnum(['ACCESS', 'access', 'TRUNK', 'trunk'])),
    gvrp: Type.Optional(StringEnum(['GVRP', 'gvrp', 'NOGVRP', 'nogvrp'])),
    native_vid: Type.Optional(Type.Union([Type.Null(), VlanId])),
  }, { additionalProperties: false }),
});
const Update = Type.Object({
  vswitch: Type.Object({
    grant_userid: Type.Optional(Userid),
    user_vlan_id: Type.Optional(Type.Object({ userid: Userid, vlanid: Type.Union([Type.Literal(-1), VlanId]) }, { additionalProperties: false })),
    revoke_userid: Type.Optional(Userid),
  }, { additionalProperties: false }),
});
const NameParams = Type.Object({ name: VswitchName });
const PortQuery = Type.Object({ portid: Type.String() });
const NicRecord = Type.Object({ userid: Type.String(), interface: Type.String(), switch: Type.Union([Type.String(), Type.Null()]), port: Type.Union([Type.String(), Type.Null()]), comments: Type.Null() });
const tags = ['vswitch'];
const withUser = (users: VswitchUser[], userid: string, vlanIds?: number[]): VswitchUser[] => [
  ...users.filter((u) => u.userid.toUpperCase() !== userid),
  { userid, ...(vlanIds ? { vlanIds } : {}) },
];

/** Vswitches (docs/rest-interface.md §1.2 rows 53–58, §3.10): ZVswitch writes, live details. */
const vswitchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests, config, hypervisors }) => {
  const vswitches = createVswitchService({ store: guests.store, hypervisors, config, writes: guests.writes });

  async function requireGuest(userid: string): Promise<ZGuest> {
    return guests.require(userid);
  }

  app.get('/vswitches', { schema: { summary: 'Names of the vswitches of the host', tags, response: { 200: Envelope(Type.Array(Type.String())) } } }, async () =>
    ok(await vswitches.ops().list()));

  app.post('/vswitches', { schema: { summary: 'Create a vswitch', tags, body: Create, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    await vswitches.create(computeVswitchSpec(req.body.vswitch as VswitchCreateInput, config.defaultHost));
    return ok();
  });

  app.get('/vswitches/:name', { schema: { summary: 'Details of a vswitch (live)', tags, params: NameParams, response: { 200: Envelope(Type.Record(Type.String(), Type.Unknown())) } } }, async (req) => {
    const details = await vswitches.ops().describe(req.params.name);
    if (!details) throw vswitchNotFound(req.params.name);
    return ok({ ...details } as Record<string, unknown>);
  });

  app.delete('/vswitches/:name', { schema: { summary: 'Delete a vswitch', tags, params: NameParams, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    await vswitches.remove(req.params.name);
    return ok();
  });

  app.put('/vswitches/:name', { schema: { summary: 'Grant or revoke a user, or set its VLAN id (the first key given)', tags, params: NameParams, body: Update, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const { grant_userid: grant, user_vlan_id: vlan, revoke_userid: revoke } = req.body.vswitch;
    const name = req.params.name.toUpperCase();
    if (!grant && !vlan && !revoke) throw invalidRequest('one of grant_userid, user_vlan_id or revoke_userid is required');
    const v = await vswitches.find(name);
    if (revoke !== undefined && !grant && !vlan) {
      // the reference swallows every revoke failure (§3.10): an unknown switch or user is success
      if (v) await vswitches.setUsers(v, (v.spec.authorizedUsers ?? []).filter((u) => u.userid.toUpperCase() !== revoke.toUpperCase()), `${revoke.toUpperCase()} to be revoked from ${name}`).catch((err: unknown) => req.log.warn({ err }, 'revoke failed'));
      return ok();
    }
    if (!v) throw vswitchNotFound(name);
    const users = v.spec.authorizedUsers ?? [];
    if (grant !== undefined) {
      const userid = (await requireGuest(grant)).spec.userid.toUpperCase();
      if (users.some((u) => u.userid.toUpperCase() === userid)) return ok(); // already authorized: nothing to disturb
      await vswitches.setUsers(v, [...users, { userid }], `${userid} to be granted on ${name}`);
      return ok();
    }
    const userid = (await requireGuest(vlan!.userid)).spec.userid.toUpperCase();
    await vswitches.setUsers(v, withUser(users, userid, vlan!.vlanid === -1 ? [] : [vlan!.vlanid]), `VLAN ${vlan!.vlanid} of ${userid} on ${name}`);
    return ok();
  });

  app.get('/vswitch', { schema: { summary: 'NIC records whose port is portid (JSON body on a GET)', tags, response: { 200: Envelope(Type.Array(NicRecord)) } } }, async (req) => {
    const { portid } = validateOrThrow<{ portid: string }>(PortQuery, await readJsonBody(req.raw));
    const items = await guests.listServed();
    const rows = items.flatMap((g) => (g.spec.nics ?? []).filter((n) => (n.nicId ?? '').toUpperCase() === portid.toUpperCase()).map((n) => ({
      userid: g.spec.userid.toUpperCase(), interface: n.vdev, switch: n.vswitch?.toUpperCase() ?? null, port: n.nicId ?? null, comments: null,
    })));
    return ok(rows);
  });
};

export default vswitchRoutes;
