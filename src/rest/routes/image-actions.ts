/**
 * The guest actions `deploy` and `capture` (docs/rest-interface.md §1.4, §3.4, §3.5): deploy writes
 * spec.image (+ spec.imageDeploy) and waits for status.deployedImage; capture creates a ZImage
 * whose source is the guest and waits for it. Both share one bounded, non-blocking semaphore per
 * REST app (the reference's max_concurrent_deploy_capture, config maxConcurrentDeployCapture,
 * default 20): when it is full → 503.
 */
import { Type } from '@sinclair/typebox';
import { REMOTE_HOST_PATTERN, imageNameOf } from '../../api/index.js';
import { silentLogger } from '../../log.js';
import { FeilongError, ModID, feilongErrors } from '../feilong-error.js';
import type { ActionContext, GuestAction } from '../guests/actions.js';
import type { GuestService } from '../guests/service.js';
import { Bool, Vdev } from '../schemas.js';
import { StringEnum } from '../validation.js';
import { checkInsideDirs } from '../../hypervisor/index.js';
import { checkImageNameInput, checkPathInput, createImageService, type ImageService } from './image-service.js';

const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const Name = Type.String({ minLength: 1, maxLength: 255 });

const DeployBody = Type.Object({
  image: Name,
  transportfiles: nullable(Type.String()),
  remotehost: nullable(Type.String({ pattern: REMOTE_HOST_PATTERN })),
  vdev: nullable(Vdev),
  hostname: nullable(Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-zA-Z0-9-._]*$' })),
  skipdiskcopy: Type.Optional(Bool),
}, { additionalProperties: false });

const CaptureBody = Type.Object({
  image: Name,
  capture_type: Type.Optional(StringEnum(['rootonly', 'alldisks'])),
  compress_level: Type.Optional(Type.Integer()),
}, { additionalProperties: false });

/** Per REST app (one GuestService each): how many deploy/capture requests are running. */
const running = new WeakMap<GuestService, { n: number }>();
const services = new WeakMap<GuestService, ImageService>();

function imagesOf(service: GuestService): ImageService {
  let s = services.get(service);
  if (!s) {
    // images live on the REST default host, which is what hypervisorFor() without a guest resolves
    s = createImageService({ store: service.store, hypervisors: { forHost: () => service.hypervisorFor() }, config: service.config, writes: service.writes, log: silentLogger() });
    services.set(service, s);
  }
  return s;
}

function busy(req: string): FeilongError {
  return new FeilongError('UNAVAILABLE', {
    overallRC: 503, modID: ModID.sdkwsgi, rc: 503, rs: 1, errmsg: `Max concurrent deploy/capture requests received, request is rejected. ${req}`,
  });
}

async function throttled<T>(ctx: ActionContext, describe: () => string, fn: () => Promise<T>): Promise<T> {
  const slot = running.get(ctx.service) ?? { n: 0 };
  running.set(ctx.service, slot);
  if (slot.n >= ctx.service.config.maxConcurrentDeployCapture) throw busy(describe());
  slot.n++;
  try {
    return await fn();
  } finally {
    slot.n--;
  }
}

const py = (v: unknown) => (v === undefined || v === null ? 'None' : typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));
const isTrue = (v: unknown) => v === true || (typeof v === 'string' && ['1', 'true', 'on', 'yes'].includes(v.toLowerCase()));

async function deploy(ctx: ActionContext): Promise<void> {
  const b = ctx.body as { image: string; transportfiles?: string | null; remotehost?: string | null; vdev?: string | null; skipdiskcopy?: unknown };
  const userid = ctx.guest.spec.userid.toUpperCase();
  const describe = () =>
    `action: 'deploy', userid: ${userid.toLowerCase()},transportfiles: ${py(b.transportfiles)}, remotehost: ${py(b.remotehost)},vdev: ${py(b.vdev)}, skipdiskcopy: ${py(isTrue(b.skipdiskcopy))}`;
  await throttled(ctx, describe, async () => {
    checkImageNameInput(b.image);
    if (b.transportfiles) checkPathInput('transportfiles', b.transportfiles);
    if (b.transportfiles && !b.remotehost) checkInsideDirs(b.transportfiles, imagesOf(ctx.service).config.imageDirs); // 400 before any write
    if (isTrue(b.skipdiskcopy)) throw feilongErrors.notImplemented('deploy with skipdiskcopy');
    const image = await imagesOf(ctx.service).requireReady(b.image);
    const name = imageNameOf(image);
    if ((await ctx.service.hypervisorFor(ctx.guest).queryPowerState(userid)) !== 'off') {
      throw feilongErrors.conflict(1, `Failed to deploy image to userid: '${userid}', the guest is powered on; stop it first`);
    }
    const imageDeploy = {
      ...(b.vdev ? { vdev: b.vdev } : {}),
      ...(b.transportfiles ? { transportFiles: b.transportfiles } : {}),
      ...(b.remotehost ? { remoteHost: b.remotehost } : {}),
    };
    await ctx.service.patchAndWait(
      ctx.guest,
      { metadata: { annotations: { 'zvm.dev/rest-requested-at': new Date().toISOString() } }, spec: { image: name, imageDeploy } },
      (g) => (g.status?.deployedImage ?? '').toLowerCase() === name.toLowerCase(),
      `image ${name} to be deployed on guest '${userid}'`,
    );
  });
}

async function capture(ctx: ActionContext): Promise<void> {
  const b = ctx.body as { image: string; capture_type?: 'rootonly' | 'alldisks'; compress_level?: number };
  const userid = ctx.guest.spec.userid.toUpperCase();
  const type = b.capture_type ?? 'rootonly';
  const level = b.compress_level ?? 6;
  const describe = () => `action: 'capture', userid: ${userid.toLowerCase()},image name: ${b.image}, capture type: ${type},compress level: ${level}`;
  await throttled(ctx, describe, async () => {
    // the reference has no alldisks capture (§3.5)
    if (type === 'alldisks') throw feilongErrors.notImplemented('capture_type alldisks');
    checkImageNameInput(b.image);
    if (!Number.isInteger(level) || level < 0 || level > 9) throw feilongErrors.invalidArg(`compress_level ${level} is not 0-9`);
    const images = imagesOf(ctx.service);
    images.mgmt();
    const ns = ctx.guest.metadata.namespace ?? ctx.service.config.namespace;
    await images.createAndWait(b.image, { capture: { guest: `${ns}/${ctx.guest.metadata.name}`, captureType: type, compressLevel: level } });
  });
}

export const IMAGE_ACTIONS: Record<'deploy' | 'capture', GuestAction> = {
  deploy: { schema: DeployBody, run: deploy },
  capture: { schema: CaptureBody, run: capture },
};
