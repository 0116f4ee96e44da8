import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { GuestDisk, GuestDiskConfig } from '../../api/index.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { FeilongError, ModID, feilongErrors } from '../feilong-error.js';
import { computeCreatedDisks, computeDisks, inRequestTerms, nextVdev, type DiskInput } from '../guests/mapping.js';
import { computeMinidisk } from '../guests/outputs.js';
import { CreatedDiskOutput, DiskList, FILE_TYPES, UseridParams, Vdev } from '../schemas.js';
import { StringEnum } from '../validation.js';
import type { RouteDeps } from './route-deps.js';

const CreateDisks = Type.Object({ disk_info: Type.Object({ disk_list: Type.Optional(DiskList) }, { additionalProperties: false }) }, { additionalProperties: false });
const DeleteDisks = Type.Object({ vdev_info: Type.Object({ vdev_list: Type.Array(Vdev, { minItems: 1, uniqueItems: true }) }, { additionalProperties: false }) }, { additionalProperties: false });
const ConfigDisks = Type.Object({
  disk_info: Type.Object({
    disk_list: Type.Optional(Type.Array(Type.Object({
      format: StringEnum(FILE_TYPES), vdev: Type.Optional(Vdev), mntdir: Type.Optional(Type.String()), size: Type.Optional(Type.String()),
    }))),
  }),
});
const Minidisk = Type.Object({
  vdev: Type.String(), rdev: Type.String(), access_type: Type.String(), device_type: Type.String(),
  device_size: Type.Integer(), device_units: Type.String(), volume_label: Type.String(),
});
const tags = ['disks'];

/**
 * Configure entries with the interface's defaults: vdev = root vdev + 1, + 2 … by position; mount
 * directory /mnt/ephemeral0, /mnt/ephemeral1 … (a swap disk gets `swap`, as the reference).
 */
function computeDiskConfig(list: { format: GuestDiskConfig['format']; vdev?: string; mntdir?: string }[], rootVdev: string): GuestDiskConfig[] {
  return list.map((d, i) => ({
    vdev: (d.vdev ?? (parseInt(rootVdev, 16) + i + 1).toString(16)).toUpperCase().padStart(4, '0'),
    format: d.format,
    mntdir: d.mntdir || (d.format === 'swap' ? 'swap' : `/mnt/ephemeral${i}`),
  }));
}

const sameVdev = (a: string | undefined, b: string) => (a ?? '').toUpperCase().padStart(4, '0') === b.toUpperCase().padStart(4, '0');

/** POST|DELETE|PUT|GET /guests/{userid}/disks: spec.disks writes, and the directory's minidisks. */
const guestDiskRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests, config }) => {
  app.post('/guests/:userid/disks', {
    schema: { summary: 'Add disks to a guest and wait until they exist', tags, params: UseridParams, body: CreateDisks, response: { 200: Envelope(Type.Union([CreatedDiskOutput, EmptyOutput])) } },
  }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const list = (req.body.disk_info.disk_list ?? []) as DiskInput[];
    if (list.length === 0) return ok();
    const existing = guest.spec.disks ?? [];
    const state = await guests.hypervisorFor(guest).describeGuest(guest.spec.userid);
    const used = [...existing.map((d) => d.vdev ?? ''), ...(state?.directory.disks.map((d) => d.vdev) ?? [])];
    const added = computeDisks(list, config, nextVdev(used, config.userRootVdev), false);
    const clash = added.find((a) => used.some((u) => sameVdev(u, a.vdev!)));
    if (clash) throw feilongErrors.invalidArg(`vdev ${clash.vdev} is already used by guest ${guest.spec.userid}`);
    const disks = [...existing, ...added];
    const done = await guests.patchAndWait(
      guest,
      { spec: { disks } },
      (g) => added.every((a) => g.status?.disks?.some((d) => sameVdev(d.vdev, a.vdev!))),
      `disks of guest '${guest.spec.userid}' to be created`,
    ).catch((err: unknown) => {
      throw inRequestTerms(err, { spec: { disks } }, { disks: { list: 'disk_info.disk_list', first: existing.length } });
    });
    return ok(computeCreatedDisks(added, done.status?.disks));
  });

  app.delete('/guests/:userid/disks', {
    schema: { summary: 'Remove disks of a logged-off guest', tags, params: UseridParams, body: DeleteDisks, response: { 200: Envelope(EmptyOutput) } },
  }, async (req) => {
    const guest = await guests.require(req.params.userid);
    if ((await guests.hypervisorFor(guest).queryPowerState(guest.spec.userid)) !== 'off') {
      throw feilongErrors.notImplemented('delete disks when guest is active');
    }
    const gone = req.body.vdev_info.vdev_list;
    const keep: GuestDisk[] = (guest.spec.disks ?? []).filter((d) => !gone.some((v) => sameVdev(d.vdev, v)));
    await guests.patchAndWait(
      guest,
      { spec: { disks: keep } },
      (g) => !(g.status?.disks ?? []).some((d) => gone.some((v) => sameVdev(d.vdev, v))),
      `disks of guest '${guest.spec.userid}' to be removed`,
    );
    return ok();
  });

  app.put('/guests/:userid/disks', {
    schema: { summary: 'Record how the guest OS formats and mounts disks (spec.diskConfig; no in-guest agent acts on it)', tags, params: UseridParams, body: ConfigDisks, response: { 200: Envelope(EmptyOutput) } },
  }, async (req) => {
    const guest = await guests.require(req.params.userid);
    const list = (req.body.disk_info.disk_list ?? []) as { format: GuestDiskConfig['format']; vdev?: string; mntdir?: string }[];
    if (list.length === 0) return ok();
    const entries = computeDiskConfig(list, config.userRootVdev);
    const state = await guests.hypervisorFor(guest).describeGuest(guest.spec.userid);
    if (!state) throw feilongErrors.guestNotInDirectory(guest.spec.userid);
    const missing = entries.find((e) => !state.directory.disks.some((d) => sameVdev(d.vdev, e.vdev)));
    if (missing) throw new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.guest, rc: 404, rs: 1, errmsg: `Guest device ${missing.vdev} does not exist.` });
    const kept = (guest.spec.diskConfig ?? []).filter((c) => !entries.some((e) => sameVdev(c.vdev, e.vdev)));
    await guests.patchAndWait(
      guest,
      { spec: { diskConfig: [...kept, ...entries] } },
      (g) => entries.every((e) => g.status?.configuredDisks?.some((c) => sameVdev(c.vdev, e.vdev) && c.mntdir === e.mntdir && c.format === e.format)),
      `disk configuration of guest '${guest.spec.userid}' to be recorded`,
    );
    return ok();
  });

  app.get('/guests/:userid/disks', {
    schema: { summary: 'Minidisks of a guest from its directory entry', tags, params: UseridParams, response: { 200: Envelope(Type.Object({ minidisks: Type.Array(Minidisk) })) } },
  }, async (req) => {
    const userid = req.params.userid.toUpperCase();
    const guest = await guests.find(userid);
    const state = await guests.hypervisorFor(guest).describeGuest(userid);
    if (!state) throw feilongErrors.guestNotFound(userid);
    return ok({ minidisks: state.directory.disks.map(computeMinidisk) });
  });
};

export default guestDiskRoutes;
