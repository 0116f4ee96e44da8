/**
 * The REST side of images: ZImage resources are the image table. Import and capture create a
 * ZImage and wait for the controller; delete removes it and waits; export and the access times
 * of the list are live reads of the host's repository (the management guest).
 */
import { createHash } from 'node:crypto';
import { API_VERSION, EXPORT_PROGRESS_ANNOTATION, IMAGE_FINALIZER, imageNameOf, isSafeImageName, type ZImage, type ZImageSpec } from '../../api/index.js';
import type { ImageRecord, MgmtOps } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';
import { annotationProgressWriter, type ProgressWriter } from '../../controllers/index.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { FeilongError, ModID, feilongErrors } from '../feilong-error.js';
import { restOwned } from '../ownership.js';
import type { WriteAndWait } from '../write-and-wait.js';

const KIND = 'ZImage';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const imageErrors = {
  notFound: (name: string) => new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.image, rc: 404, rs: 1, errmsg: `Image with name: ${name} does not exist.` }),
  exists: (name: string) => new FeilongError('ALREADY_EXISTS', {
    overallRC: 300, modID: ModID.image, rc: 300, rs: 13, errmsg: `Image import error: image name ${name} already exist in image database`,
  }),
  /** ours: the reference blocks the second call; here it is told at once what runs and where to see it */
  busy: (name: string, how: string, verb: string) => feilongErrors.conflict(1,
    `Image ${name} is being ${how} and cannot be ${verb} until that ends; GET /images?imagename=${name} shows its progress`, ModID.image),
  noMgmt: (host: string) => new FeilongError('NOT_SUPPORTED', {
    overallRC: 501, modID: ModID.image, rc: 501, rs: 1, errmsg: `The requested function: image repository of host ${host} has not been implemented in current release`,
  }),
};

/** Image names are folder names in the repository: nothing that could climb out of it (400). */
export function checkImageNameInput(name: string): string {
  if (!isSafeImageName(name)) {
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

/** The controller has begun making the image (its finalizer is on) and has not ended. */
export function isInProgress(image: ZImage): boolean {
  const phase = image.status?.phase;
  if (phase === 'Ready' || phase === 'Failed' || phase === 'Pending' || image.metadata.deletionTimestamp) return false;
  return image.metadata.finalizers?.includes(IMAGE_FINALIZER) ?? false;
}

/** ZImage names are DNS subdomains; other image names get a stable hashed name (the spec keeps the real one). */
export function resourceNameOf(imageName: string): string {
  const lower = imageName.toLowerCase();
  if (DNS_SUBDOMAIN.test(lower) && lower.length <= 253) return lower;
  return `img-${createHash('sha256').update(lower).digest('hex').slice(0, 16)}`;
}

export interface ImageServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  writes: WriteAndWait;
  log: Logger;
}

export function createImageService(deps: ImageServiceDeps) {
  const { store, config } = deps;

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

  const see = (name: string) => `GET /images?imagename=${name}`;

  /** An import or capture the controller has begun (its finalizer is on) and not ended: a second one, or a delete, would race it. */
  function requireSettled(image: ZImage, verb: string): void {
    if (isInProgress(image)) throw imageErrors.busy(imageNameOf(image), image.spec.source.capture ? 'captured' : 'imported', verb);
  }

  async function remove(name: string): Promise<void> {
    const image = await find(name);
    if (!image) return;
    requireSettled(image, 'deleted');
    await deps.writes.remove(KIND, { name: image.metadata.name }, { what: `image '${name}' to be deleted`, see: see(name) });
  }

  /** Creates the ZImage and waits until it is Ready; a failed one is removed again and its error is the answer. */
  async function createAndWait(imageName: string, source: ZImageSpec['source']): Promise<ZImage> {
    const existing = await find(imageName);
    if (existing) {
      requireSettled(existing, 'imported again');
      if (existing.status?.phase !== 'Failed') throw imageErrors.exists(imageName);
      // what an operation that outlived its call left after failing: this request starts afresh
      await deps.writes.remove(KIND, { name: existing.metadata.name }, { what: `failed image '${imageName}' to be removed`, see: see(imageName) });
    }
    const spec: ZImageSpec = { host: config.defaultHost, imageName, source };
    const obj: ZImage = { apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name: resourceNameOf(imageName) }), spec };
    return deps.writes.create(obj, {
      what: `image '${imageName}' to be ${source.capture ? 'captured' : 'imported'}`,
      see: see(imageName),
      ready: (i) => i.status?.phase === 'Ready',
      notFound: () => imageErrors.notFound(imageName),
      exists: () => imageErrors.exists(imageName),
    });
  }

  /**
   * An export's progress onto the ZImage's export-progress annotation (merge patches, at most one per
   * few seconds); REST writes no status: the ZImage reconciler copies it into status.progress. A failed
   * write only costs that sample: it never fails the export.
   */
  function exportProgress(image: ZImage): ProgressWriter {
    return annotationProgressWriter({ store, kind: KIND, key: { name: image.metadata.name }, annotation: EXPORT_PROGRESS_ANNOTATION, operation: 'export', log: deps.log });
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

  return { find, requireReady, remove, createAndWait, mgmt, exportProgress, accessTimes, config, writes: deps.writes };
}

export type ImageService = ReturnType<typeof createImageService>;
