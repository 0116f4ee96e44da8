/**
 * capture and deploy, the declarative way: capture creates a ZImage whose source is the guest, deploy
 * writes spec.image through REST's patch-and-wait; both show the controller's progress as it goes.
 */
import { API_VERSION, imageNameOf, type ZGuest, type ZImage } from '../../api/index.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { guestServiceOf, pluginOwned, requireGuest, type Backend } from './connect.js';
import { describeProgress, failedPhase, followResource } from './follow.js';
import { connectedTo, writeAndMaybeWait, type Out, type VerbOptions } from './run.js';

export interface CaptureOptions extends VerbOptions {
  image: string;
  compressLevel?: string;
}

export async function runCapture(name: string, opts: CaptureOptions): Promise<void> {
  const level = opts.compressLevel === undefined ? undefined : Number(opts.compressLevel);
  if (level !== undefined && !(Number.isInteger(level) && level >= 0 && level <= 9)) throw new InvalidInputError(`--compress-level ${opts.compressLevel} is not 0-9`);
  await connectedTo(opts, async (b, out) => {
    const guest = await requireGuest(b, name);
    const image: ZImage = {
      apiVersion: API_VERSION, kind: 'ZImage',
      metadata: pluginOwned({ name: opts.image }),
      spec: {
        ...(guest.spec.host ? { host: guest.spec.host } : {}),
        source: { capture: { guest: `${b.namespace}/${name}`, ...(level !== undefined ? { compressLevel: level } : {}) } },
      },
    };
    await b.store.create(image);
    out(`zimage.zvm.dev/${opts.image} created`);
    if (!opts.wait) return;
    await followImage(b, opts.image, opts.timeoutMs, out);
  });
}

/** Until the ZImage is Ready (or Failed), a line per change of phase or progress. */
export function followImage(b: Backend, name: string, timeoutMs: number, out: Out): Promise<ZImage> {
  return followResource<ZImage>({
    store: b.store, kind: 'ZImage', key: { name }, timeoutMs, out, what: `zimage.zvm.dev/${name}`,
    finished: (img) => img.status?.phase === 'Ready',
    failure: (img) => failedPhase(img.status),
  });
}

export interface DeployOptions extends VerbOptions {
  image: string;
}

/** Lines while a promise runs: the guest's deploy progress, read every poll. */
async function showWhile(b: Backend, name: string, out: Out, work: Promise<unknown>): Promise<void> {
  let settled = false;
  const finished = work.finally(() => void (settled = true));
  let shown = '';
  while (!settled) {
    const g = await b.store.get<ZGuest>('ZGuest', { namespace: b.namespace, name });
    const line = g?.status?.progress ? describeProgress({ phase: g.status.phase, progress: g.status.progress }) : '';
    if (line && line !== shown) out(`zguest.zvm.dev/${name}: ${(shown = line)}`);
    await Promise.race([finished.catch(() => undefined), new Promise((r) => setTimeout(r, 500))]);
  }
  await finished;
}

export async function runDeploy(name: string, opts: DeployOptions): Promise<void> {
  await connectedTo(opts, async (b, out) => {
    const guest = await requireGuest(b, name);
    const image = await b.store.get<ZImage>('ZImage', { name: opts.image });
    if (!image || image.status?.phase !== 'Ready') throw new NotFoundError(`zimage "${opts.image}" is not Ready${image ? ` (it is ${image.status?.phase ?? 'Pending'})` : ' (not found)'}`);
    const imageName = imageNameOf(image);
    const service = guestServiceOf(b, opts.wait ? opts.timeoutMs : 0);
    const patch = { metadata: { annotations: { 'zvm.dev/rest-requested-at': new Date().toISOString() } }, spec: { image: imageName } };
    const deployed = (g: ZGuest) => (g.status?.deployedImage ?? '').toLowerCase() === imageName.toLowerCase();
    await writeAndMaybeWait(opts.wait, () => showWhile(b, name, out, service.patchAndWait(guest, patch, deployed, `image ${imageName} to be deployed on ${name}`)),
      () => out(`zguest.zvm.dev/${name} deployed ${imageName}`), () => out(`zguest.zvm.dev/${name} deploy of ${imageName} requested`));
  });
}
