import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HypervisorError } from '../../errors.js';
import { Envelope, ok } from '../envelope.js';
import { feilongErrors } from '../feilong-error.js';
import { computeAdapter, computeGuestInfo, computeRunningGuestInfo, feilongPower, maskDirectory } from '../guests/outputs.js';
import { UseridParams } from '../schemas.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['guests'];
const schemaOf = (summary: string, output: Parameters<typeof Envelope>[0]) => ({ summary, tags, params: UseridParams, response: { 200: Envelope(output) } });
const OnOff = Type.Union([Type.Literal('on'), Type.Literal('off')]);
const GuestInfo = Type.Object({
  power_state: OnOff, max_mem_kb: Type.Integer(), mem_kb: Type.Integer(), num_cpu: Type.Integer(), cpu_time_us: Type.Integer(),
  online_cpu_num: Type.Integer(), os_distro: Type.String(), kernel_info: Type.String(),
});

/** Live reads of one guest through the Hypervisor port (docs/rest-interface.md §1.3 #24-29, #35). */
const guestQueryRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests }) => {
  /** a managed guest and its live state; 404 rs3 when the directory entry is gone */
  async function describeManaged(userid: string) {
    const guest = await guests.require(userid);
    const hv = guests.hypervisorFor(guest);
    const state = await hv.describeGuest(guest.spec.userid);
    if (!state) throw feilongErrors.guestNotInDirectory(guest.spec.userid);
    return { guest, hv, state };
  }

  app.get('/guests/:userid/power_state_real', { schema: schemaOf('Power state read from z/VM, managed or not', OnOff) }, async (req) =>
    ok(feilongPower(await guests.hypervisorFor().queryPowerState(req.params.userid.toUpperCase()))));

  app.get('/guests/:userid/info', { schema: schemaOf('Running info of a managed guest', GuestInfo) }, async (req) => {
    // a logged-on guest has a performance record carrying everything /info reports (one call);
    // a logged-off one has none, and its directory entry answers
    const guest = await guests.require(req.params.userid);
    const [perf] = await guests.hypervisorFor(guest).queryPerformance([guest.spec.userid.toUpperCase()]);
    if (perf) return ok(computeRunningGuestInfo(perf));
    const { state } = await describeManaged(req.params.userid);
    return ok(computeGuestInfo(state, undefined));
  });

  app.get('/guests/:userid/os_info', { schema: schemaOf('OS of a managed guest (empty without an in-guest agent)', Type.Object({ os_distro: Type.String(), kernel_info: Type.String() })) }, async (req) => {
    await describeManaged(req.params.userid);
    return ok({ os_distro: '', kernel_info: '' });
  });

  app.get('/guests/:userid/online_cpu_num', { schema: schemaOf('Active CPU count of a managed guest', Type.Integer()) }, async (req) => {
    const { state } = await describeManaged(req.params.userid);
    return ok(state.power === 'off' ? 0 : (state.active?.cpus ?? 0));
  });

  app.get('/guests/:userid/user_direct', { schema: schemaOf('Directory entry, password masked', Type.Object({ user_direct: Type.Array(Type.String()) })) }, async (req) => {
    const userid = req.params.userid.toUpperCase();
    const guest = await guests.find(userid);
    const state = await guests.hypervisorFor(guest).describeGuest(userid);
    if (!state) throw feilongErrors.guestNotFound(userid);
    return ok({ user_direct: maskDirectory(state.directory.lines) });
  });

  app.get('/guests/:userid/adapters', { schema: schemaOf('Network adapters of a guest', Type.Object({ adapters: Type.Array(Type.Record(Type.String(), Type.String())) })) }, async (req) => {
    const userid = req.params.userid.toUpperCase();
    const guest = await guests.find(userid);
    const state = await guests.hypervisorFor(guest).describeGuest(userid);
    if (!state) throw feilongErrors.guestNotFound(userid);
    return ok({ adapters: state.directory.nics.map(computeAdapter) });
  });

  // one SMAPI call (Image_Status_Query): that the guest exists comes from our own state, as feilong's
  // check_guest_exist reads its guest database
  app.get('/guests/:userid/power_state', { schema: schemaOf('Power state of a managed guest', OnOff) }, async (req) => {
    const guest = await guests.require(req.params.userid, true);
    try {
      return ok(feilongPower(await guests.hypervisorFor(guest).queryPowerState(guest.spec.userid)));
    } catch (err) {
      // a host that says the userid is not defined: managed but gone from the directory (rs 3)
      if (err instanceof HypervisorError && err.rc === 400 && err.rs === 4) throw feilongErrors.guestNotInDirectory(guest.spec.userid);
      throw err;
    }
  });
};

export default guestQueryRoutes;
