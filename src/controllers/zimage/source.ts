/** Runs an image's source once: an import, or a capture of a guest's disk (stopped around it). */
import type { ZGuest, ZImage } from '../../api/index.js';
import { imageNameOf } from '../../api/index.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { Hypervisor, ImageRecord, MgmtCallOptions, MgmtOps, TransferProgress } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';

export interface SourceContext {
  image: ZImage;
  hv: Hypervisor;
  mgmt: MgmtOps;
  store: StateStore;
  log: Logger;
  signal: AbortSignal;
  /** where transfer progress goes (status, throttled); default: the log */
  onProgress?: (p: TransferProgress) => void;
}

function callOptions(ctx: SourceContext): MgmtCallOptions {
  return { signal: ctx.signal, onProgress: ctx.onProgress ?? ((p) => ctx.log.info({ bytes: p.bytes, total: p.total }, 'image transfer progress')) };
}

/** namespace/name of a ZGuest, or a bare userid. */
async function resolveGuest(ctx: SourceContext, guest: string): Promise<{ userid: string; zguest?: ZGuest }> {
  if (!guest.includes('/')) return { userid: guest.toUpperCase() };
  const [namespace, name] = guest.split('/', 2) as [string, string];
  const zguest = await ctx.store.get<ZGuest>('ZGuest', { namespace, name });
  if (!zguest) throw new NotFoundError(`ZGuest ${guest} does not exist`);
  return { userid: zguest.spec.userid.toUpperCase(), zguest };
}

/** The os of the image deployed on the guest, when that image is known. */
async function deployedOs(ctx: SourceContext, zguest: ZGuest | undefined): Promise<string | undefined> {
  const deployed = zguest?.status?.deployedImage;
  if (!deployed) return undefined;
  const { items } = await ctx.store.list<ZImage>('ZImage');
  return items.find((i) => imageNameOf(i).toLowerCase() === deployed.toLowerCase())?.status?.osVersion;
}

export async function runImport(ctx: SourceContext): Promise<ImageRecord> {
  const src = ctx.image.spec.source.import!;
  return ctx.mgmt.importImage({ name: imageNameOf(ctx.image), ...src, owner: ctx.image.metadata.uid }, callOptions(ctx));
}

/** feilong stops a running guest for the capture and starts it again afterwards (§3.5). */
export async function runCapture(ctx: SourceContext): Promise<ImageRecord> {
  const src = ctx.image.spec.source.capture!;
  const { userid, zguest } = await resolveGuest(ctx, src.guest);
  const state = await ctx.hv.describeGuest(userid, { signal: ctx.signal });
  if (!state) throw new NotFoundError(`Guest '${userid}' does not exist.`);
  const vdev = src.vdev ?? state.directory.disks[0]?.vdev;
  if (!vdev) throw new InvalidInputError(`guest ${userid} has no minidisk to capture`);
  const osVersion = src.osVersion ?? (await deployedOs(ctx, zguest)) ?? 'unknown';
  const wasOn = state.power !== 'off';
  if (wasOn) await ctx.hv.stop(userid, { signal: ctx.signal });
  try {
    return await ctx.mgmt.captureImage({
      userid, image: imageNameOf(ctx.image), vdev, captureType: src.captureType ?? 'rootonly', compressLevel: src.compressLevel ?? 6, osVersion,
      owner: ctx.image.metadata.uid,
    }, callOptions(ctx));
  } finally {
    if (wasOn) await ctx.hv.start(userid, { signal: ctx.signal });
  }
}
