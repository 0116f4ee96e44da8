import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ZGuest } from '../../api/index.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { FeilongError, ModID, feilongErrors } from '../feilong-error.js';
import { toBool } from '../guests/mapping.js';
import { computeNicVdev, planInterfaces, sameVdev, toGuestNic, type NetworkInput } from '../guests/nics.js';
import { Bool, OsVersion, Userid, UseridParams, Vdev } from '../schemas.js';
import type { RouteDeps } from './route-deps.js';

const Mac = Type.String({ pattern: '^([0-9a-fA-F]{2})(:[0-9a-fA-F]{2}){5}$' });
const Ipv4 = Type.String({ format: 'ipv4' });
const NicParams = Type.Object({ userid: Userid, vdev: Vdev });
const CreateNic = Type.Object({
  nic: Type.Object({ vdev: Type.Optional(Type.Union([Vdev, Type.Null()])), nic_id: Type.Optional(Type.String()), mac_addr: Type.Optional(Mac), active: Type.Optional(Bool) }, { additionalProperties: false }),
});
const DeleteNic = Type.Object({ active: Type.Optional(Bool) });
const CoupleNic = Type.Object({
  info: Type.Object({
    couple: Bool, active: Type.Optional(Bool), vswitch: Type.Optional(Type.String({ minLength: 1, maxLength: 8 })),
    vlan_id: Type.Optional(Type.Integer({ minimum: -1, maximum: 4094 })),
  }, { additionalProperties: false }),
});
const NetworkItem = Type.Object({
  method: Type.Optional(Type.Union([Type.Null(), Type.Literal('static'), Type.Literal('dhcp')])),
  ip_addr: Type.Optional(Ipv4), dns_addr: Type.Optional(Type.Array(Ipv4)), gateway_addr: Type.Optional(Ipv4),
  mac_addr: Type.Optional(Mac), cidr: Type.Optional(Type.String()), nic_vdev: Type.Optional(Vdev), nic_id: Type.Optional(Type.String()),
  osa_device: Type.Optional(Vdev), hostname: Type.Optional(Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-zA-Z0-9-._]*$' })])),
}, { dependencies: { ip_addr: ['cidr'] } });
const CreateInterface = Type.Object({
  interface: Type.Object({ os_version: OsVersion, guest_networks: Type.Array(NetworkItem, { minItems: 1 }), active: Type.Optional(Bool) }, { additionalProperties: false }),
});
const DeleteInterface = Type.Object({ interface: Type.Object({ os_version: OsVersion, vdev: Vdev, active: Type.Optional(Bool) }, { additionalProperties: false }) });
const tags = ['network'];

function deviceNotFound(userid: string, vdev: string) {
  return new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.network, rc: 404, rs: 1, errmsg: `User ${userid} with nic ${vdev} does not exist.` });
}

/**
 * NICs and network interfaces as spec.nics / spec.network writes (docs/rest-interface.md §3.9). The
 * controller changes the directory (NICDEF) only: `active: true` is checked (the guest must be
 * logged on, 409 rs1 as the reference) but the running guest sees the change at its next logon.
 */
const guestNicRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests }) => {
  const converged = (g: ZGuest) => g !== undefined;
  async function requireActiveIfAsked(guest: ZGuest, active: boolean | string | undefined): Promise<void> {
    if (!toBool(active)) return;
    if ((await guests.hypervisorFor(guest).queryPowerState(guest.spec.userid)) === 'off') throw feilongErrors.guestNotActive(guest.spec.userid.toUpperCase());
  }

  app.post('/guests/:userid/nic', { schema: { summary: 'Add a NIC', tags, params: UseridParams, body: CreateNic, response: { 200: Envelope(Type.String()) } } }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const nics = guest.spec.nics ?? [];
    const vdev = computeNicVdev(nics.map((n) => n.vdev), req.body.nic.vdev, guest.spec.userid);
    await requireActiveIfAsked(guest, req.body.nic.active);
    await guests.patchAndWait(guest, { spec: { nics: [...nics, toGuestNic(vdev, req.body.nic.nic_id, req.body.nic.mac_addr)] } },
      (g) => g.status?.nics?.some((n) => sameVdev(n.vdev, vdev)) ?? true, `NIC ${vdev} of guest '${guest.spec.userid}'`);
    return ok(vdev);
  });

  app.get('/guests/:userid/nic', { schema: { summary: 'NICs of a guest and their vswitch (older releases)', tags, params: UseridParams, deprecated: true, response: { 200: Envelope(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))) } } }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const state = await guests.hypervisorFor(guest).describeGuest(guest.spec.userid);
    if (!state) throw feilongErrors.guestNotInDirectory(guest.spec.userid);
    return ok(Object.fromEntries(state.directory.nics.map((n) => [n.vdev, n.vswitch ?? null])));
  });

  app.delete('/guests/:userid/nic/:vdev', { schema: { summary: 'Remove a NIC (a JSON body, possibly {}, is required)', tags, params: NicParams, body: DeleteNic, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const nics = guest.spec.nics ?? [];
    if (!nics.some((n) => sameVdev(n.vdev, req.params.vdev))) return ok(); // unknown NIC: nothing to do, as the reference
    await guests.patchAndWait(guest, { spec: { nics: nics.filter((n) => !sameVdev(n.vdev, req.params.vdev)) } },
      (g) => !(g.status?.nics ?? []).some((n) => sameVdev(n.vdev, req.params.vdev)), `NIC ${req.params.vdev} of guest '${guest.spec.userid}' to be removed`);
    return ok();
  });

  app.put('/guests/:userid/nic/:vdev', { schema: { summary: 'Couple a NIC to a vswitch or uncouple it', tags, params: NicParams, body: CoupleNic, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const { couple, vswitch, vlan_id: vlan } = req.body.info;
    if (toBool(couple) && !vswitch) throw new FeilongError('INVALID_INPUT', { overallRC: 400, modID: ModID.sdkwsgi, rc: 400, rs: 1, errmsg: 'Invalid request: vswitch is required to couple a NIC' });
    const nics = guest.spec.nics ?? [];
    const nic = nics.find((n) => sameVdev(n.vdev, req.params.vdev));
    if (!nic) throw deviceNotFound(guest.spec.userid, req.params.vdev);
    await requireActiveIfAsked(guest, req.body.info.active);
    const { vswitch: _vs, vlan: _vl, ...rest } = nic;
    const changed = toBool(couple) ? { ...rest, vswitch: vswitch!.toUpperCase(), ...(vlan !== undefined && vlan >= 0 ? { vlan } : {}) } : rest;
    const want = toBool(couple) ? vswitch!.toUpperCase() : undefined;
    const done = (g: ZGuest) => g.status?.nics?.some((n) => sameVdev(n.vdev, req.params.vdev) && n.vswitch === want) ?? true;
    await guests.patchAndWait(guest, { spec: { nics: nics.map((n) => (n === nic ? changed : n)) } }, done, `NIC ${req.params.vdev} of guest '${guest.spec.userid}' to be ${toBool(couple) ? 'coupled' : 'uncoupled'}`);
    return ok();
  });

  app.post('/guests/:userid/interface', { schema: { summary: 'Add network interfaces (a NIC each) and their OS configuration', tags, params: UseridParams, body: CreateInterface, response: { 200: Envelope(Type.Array(Type.Record(Type.String(), Type.Unknown()))) } } }, async (req) => {
    const networks = req.body.interface.guest_networks as NetworkInput[];
    const guest = await guests.require(req.params.userid);
    const plan = planInterfaces(guest.spec, req.body.interface.os_version, networks);
    await requireActiveIfAsked(guest, req.body.interface.active);
    await guests.patchAndWait(guest, { spec: { nics: plan.nics, network: plan.network } }, converged, `interfaces of guest '${guest.spec.userid}'`);
    return ok(plan.echoed);
  });

  app.delete('/guests/:userid/interface', { schema: { summary: 'Remove a network interface and its NIC', tags, params: UseridParams, body: DeleteInterface, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const vdev = req.body.interface.vdev;
    const interfaces = (guest.spec.network?.interfaces ?? []).filter((i) => !sameVdev(i.nicVdev, vdev));
    const network = interfaces.length > 0 ? { osVersion: req.body.interface.os_version, interfaces } : null;
    const nics = (guest.spec.nics ?? []).filter((n) => !sameVdev(n.vdev, vdev));
    await guests.patchAndWait(guest, { spec: { nics, network } }, converged, `interface ${vdev} of guest '${guest.spec.userid}' to be removed`);
    return ok();
  });
};

export default guestNicRoutes;
