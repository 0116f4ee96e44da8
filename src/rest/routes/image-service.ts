/**
 * The REST side of images: ZImage resources are the image table. Import and capture create a
 * ZImage and wait for the controller; delete removes it and waits; export and the access times
 * of the list are live reads of the host's repository (the management guest).
 */
import { createHash } from 'node:crypto';
import { API_VERSION, IMAGE_NAME_PATTERN, imageNameOf, type ZImage, type ZImageSpec } from '../../api/index.js';
import { NotFoundError } from '../../errors.js';
import type { ImageRecord, MgmtOps } from '../../hypervisor/image-port.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';
import { statusProgressWriter, type ProgressWriter } from '../../controllers/zimage/progress.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { FeilongError, ModID, feilongErrors, fromHvError } from '../feilong-error.js';
import { waitForObject } from '../guests/wait.js';
import { restOwned } from '../ownership.js';

const KIND = 'ZImage';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SAFE_NAME = new RegExp(IMAGE_NAME_PATTERN);

export const imageErrors = {
  notFound: (name: string) => new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.image, rc: 404, rs: 1, errmsg: `Image with name: ${name} does not exist.` }),
  exists: (name: string) => new FeilongError('ALREADY_EXISTS', {
    overallRC: 300, modID: ModID.image, rc: 300, rs: 13, errmsg: `Image import error: image name ${name} already exist in image database`,
  }),
  noMgmt: (host: string) => new FeilongError('NOT_SUPPORTED', {
    overallRC: 501, modID: ModID.image, rc: 501, rs: 1, errmsg: `The requested function: image repository of host ${host} has not been implemented in current release`,
  }),
};

/** Image names are folder names in the repository: nothing that could climb out of it (400). */
export function checkImageNameInput(name: string): string {
  if (!SAFE_NAME.test(name) || name.includes('..')) {
    throw feilongErrors.invalidArg(`image name ${name} is not allowed: use letters, digits, '.', '_' and '-', no '..'`);
  }
  return name;
}

/** file:// URLs and transport paths must be absolute, without '..', '.', '%' escapes or NUL (400). */
export function checkPathInput(what: string, path: string): string {
  const bad = path.includes('\0') || path.includes('%') || !path.startsWith('/') || path.split('/').some((s) => s === '..' || s === '.');
  if (bad) throw feilongErrors.invalidArg(`${what} ${JSON.stringify(path)} must be an absolute path without '.', '..', '%' or NUL`);
  return path;
}

export function checkUrlInput(what: string, url: string): string {
  if (url.startsWith('file:')) checkPathInput(what, url.slice('file://'.length));
  else if (url.includes('\0')) throw feilongErrors.invalidArg(`${what} contains a NUL byte`);
  return url;
}

/** ZImage names are DNS subdomains; other image names get a stable hashed name (the spec keeps the real one). */
export function resourceNameOf(imageName: string): string {
  const lower = imageName.toLowerCase();
  if (DNS_SUBDOMAIN.test(lower) && lower.length <= 253) return lower;
  return `img-${createHash('sha256').update(lower).digest('hex').slice(0, 16)}`;
}

/** The controller's verdict on a failed import or capture, as the error to answer with. */
function failureOf(image: ZImage): FeilongError | undefined {
  if (image.status?.phase !== 'Failed') return undefined;
  if (image.status.lastError) return fromHvError(image.status.lastError);
  const synced = image.status.conditions?.find((c) => c.type === 'Synced');
  return new FeilongError('INTERNAL', { overallRC: 500, modID: ModID.image, rc: 500, rs: 1, errmsg: `Unexpected internal error in ZVM SDK, error: ${synced?.reason}: ${synced?.message}` });
}

export interface ImageServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  log: Logger;
}

export function createImageService(deps: ImageServiceDeps) {
  const { store, config } = deps;
  const waitOpts = () => ({ timeoutMs: config.waitTimeoutMs, pollIntervalMs: config.pollIntervalMs });
  const seconds = Math.round(config.waitTimeoutMs / 1000);

  async function find(name: string): Promise<ZImage | undefined> {
    const byName = await store.get<ZImage>(KIND, { name: resourceNameOf(name) });
    if (byName && imageNameOf(byName).toLowerCase() === name.toLowerCase()) return byName;
    const { items } = await store.list<ZImage>(KIND);
    return items.find((i) => imageNameOf(i).toLowerCase() === name.toLowerCase());
  }

  /** A ZImage whose file is in the repository. */
  async function requireReady(name: string): Promise<ZImage> {
    const image = await find(name);
    if (!image || image.status?.phase !== 'Ready') throw imageErrors.notFound(name);
    return image;
  }

  function mgmt(): MgmtOps {
    const hv = deps.hypervisors.forHost(config.defaultHost);
    if (!hv.mgmt) throw imageErrors.noMgmt(config.defaultHost);
    return hv.mgmt;
  }

  async function waitGone(name: string): Promise<void> {
    const outcome = await waitForObject<ZImage, true>(store, KIND, { name }, (i) => (i ? undefined : true), waitOpts());
    if (!outcome.done) throw feilongErrors.waitTimeout(`image '${name}' to be deleted`, seconds);
  }

  async function remove(name: string): Promise<void> {
    const image = await find(name);
    if (!image) return;
    try {
      await store.delete(KIND, { name: image.metadata.name });
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw err;
    }
    await waitGone(image.metadata.name);
  }

  /** Creates the ZImage and waits until it is Ready; a failed one is removed again and its error is the answer. */
  async function createAndWait(imageName: string, source: ZImageSpec['source']): Promise<ZImage> {
    if (await find(imageName)) throw imageErrors.exists(imageName);
    const name = resourceNameOf(imageName);
    const spec: ZImageSpec = { host: config.defaultHost, imageName, source };
    const created = await store.create<ZImage>({ apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name }), spec });
    const generation = created.metadata.generation ?? 1;
    const outcome = await waitForObject<ZImage, ZImage>(store, KIND, { name }, (i) => {
      if (!i) throw imageErrors.notFound(imageName);
      if ((i.status?.observedGeneration ?? 0) < generation) return undefined;
      const failure = failureOf(i);
      if (failure) throw failure;
      return i.status?.phase === 'Ready' ? i : undefined;
    }, waitOpts()).catch(async (err: unknown) => {
      if (err instanceof FeilongError && err.code !== 'NOT_FOUND') {
        await store.delete(KIND, { name }).then(() => waitGone(name)).catch((e: unknown) => deps.log.warn({ err: e, image: imageName }, 'could not remove a failed image'));
      }
      throw err;
    });
    if (!outcome.done) throw feilongErrors.waitTimeout(`image '${imageName}' to be ready`, seconds);
    return outcome.value;
  }

  /**
   * An export's progress into the ZImage's status.progress (merge patches, at most one per few
   * seconds). The controller leaves a Ready image's status alone, and a failed write only costs
   * that sample: it never fails the export.
   */
  function exportProgress(image: ZImage): ProgressWriter {
    return statusProgressWriter({ store, kind: KIND, key: { name: image.metadata.name }, operation: 'export', log: deps.log });
  }

  /** Access times from the repository, by lower-case name; an unreachable repository only costs them (-1). */
  async function accessTimes(): Promise<Map<string, ImageRecord>> {
    try {
      const hv = deps.hypervisors.forHost(config.defaultHost);
      const records = hv.mgmt ? await hv.mgmt.listImages() : [];
      return new Map(records.map((r) => [r.name.toLowerCase(), r]));
    } catch (err) {
      deps.log.warn({ err }, 'image repository not readable');
      return new Map();
    }
  }

  return { find, requireReady, remove, createAndWait, mgmt, exportProgress, accessTimes, config };
}

export type ImageService = ReturnType<typeof createImageService>;
