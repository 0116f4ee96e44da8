import { Type, type TSchema } from '@sinclair/typebox';
import { Annotations, type ZGuest } from '../../api/index.js';
import type { PowerState } from '../../hypervisor/index.js';
import { feilongErrors } from '../feilong-error.js';
import { MemorySize, NonNegativeInteger, OsVersion, Userid } from '../schemas.js';
import { observedPowerOf } from './status.js';
import { adoptGuest, releaseGuest } from './adopt.js';
import { liveMigrate, LiveMigrateBody } from './migrate.js';
import { resizeCpus, resizeMemory } from './resize.js';
import type { GuestService } from './service.js';
import { IMAGE_ACTIONS } from '../routes/image-actions.js';
import { SHARE_PATTERN } from '../../api/zguest.js';

/** One action of POST /guests/{userid}/action: its body schema and what it does (docs/rest-interface.md §1.4). */
export type GuestAction =
  | { schema: TSchema; managed?: true; run(ctx: ActionContext): Promise<unknown> }
  /** register_vm: the guest is not managed yet */
  | { schema: TSchema; managed: false; run(service: GuestService, userid: string): Promise<unknown> };

export interface ActionContext {
  service: GuestService;
  guest: ZGuest;
  body: Record<string, unknown>;
}

const open = Type.Object({}, { additionalProperties: true });
const closed = (props: Record<string, TSchema>) => Type.Object(props, { additionalProperties: false });
const timeouts = closed({ timeout: Type.Optional(NonNegativeInteger), poll_interval: Type.Optional(NonNegativeInteger) });
const cpuBody = closed({
  cpu_cnt: Type.Integer({ minimum: 1, maximum: 64 }),
  cpu_share: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: SHARE_PATTERN })),
});
const memBody = closed({ size: MemorySize });

async function livePower(ctx: ActionContext): Promise<PowerState> {
  return ctx.service.hypervisorFor(ctx.guest).queryPowerState(ctx.guest.spec.userid);
}

/** A power change is a spec.powerState write; the answer waits for the observed state (§3.3). */
async function setPower(ctx: ActionContext, desired: 'Running' | 'Stopped' | 'Paused'): Promise<void> {
  const want = observedPowerOf(desired);
  await ctx.service.patchAndWait(
    ctx.guest,
    // the annotation makes the controller look again even when the spec already says so
    { metadata: { annotations: { 'zvm.dev/rest-requested-at': new Date().toISOString() } }, spec: { powerState: desired } },
    (g) => g.status?.powerState === want,
    `guest '${ctx.guest.spec.userid}' to be ${want}`,
  );
}

/** pause/unpause need a logged-on guest: 300/10/rs5 → 409, as the reference. */
async function requireOn(ctx: ActionContext, verb: string): Promise<void> {
  if ((await livePower(ctx)) === 'off') throw feilongErrors.guestPoweredOff(ctx.guest.spec.userid, verb);
}

/** reboot/reset are one-shot annotation tokens acknowledged in status (docs/architecture.md §3). */
async function requestToken(ctx: ActionContext, annotation: string, ack: 'lastHandledRebootAt' | 'lastHandledResetAt' | 'lastHandledGrowRootVolumeAt', extra: Record<string, string> = {}): Promise<void> {
  const token = new Date().toISOString();
  await ctx.service.patchAndWait(
    ctx.guest,
    { metadata: { annotations: { ...extra, [annotation]: token } } },
    (g) => (g.status?.[ack] ?? '') >= token,
    `guest '${ctx.guest.spec.userid}' to handle ${annotation}`,
  );
}

export const GUEST_ACTIONS: Record<string, GuestAction> = {
  start: { schema: closed({ timeout: Type.Optional(NonNegativeInteger), userid: Type.Optional(Type.Unknown()) }), run: (c) => setPower(c, 'Running') },
  stop: { schema: timeouts, run: (c) => setPower(c, 'Stopped') },
  // no graceful variant in the spec: softstop is Off like stop (the controller decides how)
  softstop: { schema: timeouts, run: (c) => setPower(c, 'Stopped') },
  pause: { schema: open, run: async (c) => { await requireOn(c, 'pause'); await setPower(c, 'Paused'); } },
  unpause: { schema: open, run: async (c) => { await requireOn(c, 'unpause'); await setPower(c, 'Running'); } },
  reboot: { schema: open, run: (c) => requestToken(c, Annotations.rebootRequestedAt, 'lastHandledRebootAt') },
  reset: { schema: open, run: (c) => requestToken(c, Annotations.resetRequestedAt, 'lastHandledResetAt') },
  get_console_output: { schema: open, run: (c) => c.service.hypervisorFor(c.guest).getConsoleOutput(c.guest.spec.userid) },
  resize_cpus: { schema: cpuBody, run: (c) => resizeCpus(c, c.body.cpu_cnt as number, false, c.body.cpu_share as string | undefined) },
  live_resize_cpus: { schema: cpuBody, run: (c) => resizeCpus(c, c.body.cpu_cnt as number, true, c.body.cpu_share as string | undefined) },
  resize_mem: { schema: memBody, run: (c) => resizeMemory(c, c.body.size as string, false) },
  live_resize_mem: { schema: memBody, run: (c) => resizeMemory(c, c.body.size as string, true) },
  register_vm: {
    // as the reference's schema: a string `port`, and any other key (port_macs among them) accepted unchecked
    schema: Type.Object({ meta: Type.String(), net_set: Type.String(), port: Type.Optional(Type.String()) }, { additionalProperties: true }),
    managed: false,
    run: (service, userid) => adoptGuest(service, userid),
  },
  deregister_vm: { schema: closed({ userid: Type.Optional(Userid) }), run: (c) => releaseGuest(c.service, c.guest) },
  ...IMAGE_ACTIONS,
  // the script that grows / is punched to the guest's reader; the guest runs it at its next start
  grow_root_volume: {
    schema: closed({ os_version: OsVersion }),
    run: (c) => requestToken(c, Annotations.growRootVolumeRequestedAt, 'lastHandledGrowRootVolumeAt', { [Annotations.growRootVolumeOsVersion]: String(c.body.os_version) }),
  },
  live_migrate_vm: { schema: LiveMigrateBody, run: liveMigrate },
};
