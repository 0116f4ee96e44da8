/**
 * capture and deploy, the declarative way: capture creates a ZImage whose source is the guest, deploy
 * writes spec.image through REST's patch-and-wait; both show the controller's progress as it goes.
 */
import { API_VERSION, imageNameOf, type ZGuest, type ZImage } from '../../api/index.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { guestServiceOf, pluginOwned, requireGuest, writesOf, type Backend } from './connect.js';
import { deletedWhileWaiting, showProgressWhile } from './follow.js';
import { connectedTo, writeAndMaybeWait, type Out, type VerbOptions } from './run.js';

export interface CaptureOptions extends VerbOptions {
  image: string;
  compressLevel?: string;
}

/** Creates a ZImage; with --wait follows it until Ready (a failed one is removed again, as REST does). */
export async function createImage(b: Backend, image: ZImage, opts: VerbOptions, out: Out): Promise<ZImage> {
  const name = image.metadata.name;
  const what = `zimage.zvm.dev/${name}`;
  if (!opts.wait) {
    const created = await b.store.create(image);
    out(`${what} created`);
    return created;
  }
  // with --wait the lines are the image's progress, from Pending to Ready
  return showProgressWhile({ feed: b.feed, kind: 'ZImage', key: { name }, what, out }, () => writesOf(b, opts.timeoutMs).create(image, {
    what: `image ${name} to be Ready`, see: `kubectl get zimage ${name}`,
    ready: (img) => img.status?.phase === 'Ready',
    notFound: deletedWhileWaiting(what),
  }));
}

export async function runCapture(name: string, opts: CaptureOptions): Promise<void> {
  const level = opts.compressLevel === undefined ? undefined : Number(opts.compressLevel);
  if (level !== undefined && !(Number.isInteger(level) && level >= 0 && level <= 9)) throw new InvalidInputError(`--compress-level ${opts.compressLevel} is not 0-9`);
  await connectedTo(opts, async (b, out) => {
    const guest = await requireGuest(b, name);
    await createImage(b, {
      apiVersion: API_VERSION, kind: 'ZImage',
      metadata: pluginOwned({ name: opts.image }),
      spec: {
        ...(guest.spec.host ? { host: guest.spec.host } : {}),
        source: { capture: { guest: `${b.namespace}/${name}`, ...(level !== undefined ? { compressLevel: level } : {}) } },
      },
    }, opts, out);
  });
}

export interface DeployOptions extends VerbOptions {
  image: string;
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
    const followed = { feed: b.feed, kind: 'ZGuest', key: { namespace: b.namespace, name }, what: `zguest.zvm.dev/${name}`, out };
    await writeAndMaybeWait(opts.wait, () => showProgressWhile(followed, () => service.patchAndWait(guest, patch, deployed, `image ${imageName} to be deployed on ${name}`)),
      () => out(`zguest.zvm.dev/${name} deployed ${imageName}`), () => out(`zguest.zvm.dev/${name} deploy of ${imageName} requested`));
  });
}
