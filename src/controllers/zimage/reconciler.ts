/**
 * ZImage: imports or captures the image once, keeps its record in status, and removes the
 * repository folder when the resource is deleted (finalizer). An image the repository already
 * holds under this resource's uid (a rerun after a crash) is adopted, not made again.
 */
import { IMAGE_FINALIZER, imageNameOf, type ZImage } from '../../api/index.js';
import { HypervisorError, isZvmError, type HvErrorFields } from '../../errors.js';
import type { Logger } from '../../log.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey } from '../../store/port.js';
import {
  addFinalizer, DEFAULT_HOST_RETRY_MS, HOST_NOT_FOUND, hostNotKnown, lookupHost, reconcileLogger, removeFinalizer, reportProblem, writeStatusIfChanged,
  type HostReconcilerDeps,
} from '../kit/index.js';
import { statusProgressWriter, type ProgressWriter } from '../kit/transfer-progress.js';
import { ImageReasons } from './reasons.js';
import { runCapture, runImport } from './source.js';
import { computeZImageStatus, isSettled, withExportProgress, type ImageOutcome } from './status.js';

export type ZImageReconcilerDeps = HostReconcilerDeps;

/** feilong's envelope fields for failures that are not a hypervisor answer. */
function fieldsOf(err: unknown): HvErrorFields | undefined {
  if (err instanceof HypervisorError) return err.toFields();
  if (!isZvmError(err)) return undefined;
  const msg = err.message;
  switch (err.code) {
    case 'INVALID_INPUT': case 'INVALID_SPEC': return { overallRC: 100, modID: 400, rc: 100, rs: 3, errmsg: `Invalid API arg format, error: ${msg}` };
    case 'NOT_FOUND': return { overallRC: 404, modID: 10, rc: 404, rs: 1, errmsg: msg };
    case 'NOT_SUPPORTED': return { overallRC: 501, modID: 10, rc: 501, rs: 1, errmsg: msg };
    default: return undefined;
  }
}

const REASONS: Record<string, string> = {
  INVALID_INPUT: ImageReasons.invalidSource, INVALID_SPEC: ImageReasons.invalidSource, NOT_FOUND: ImageReasons.guestNotFound, NOT_SUPPORTED: ImageReasons.notSupported,
};

type ImageHost = ReturnType<typeof lookupHost>;

export function createZImageReconciler(deps: ZImageReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const hostRetryMs = deps.hostRetryMs ?? DEFAULT_HOST_RETRY_MS;

  async function remove(image: ZImage, host: ImageHost, log: Logger): Promise<Result> {
    if (!image.metadata.finalizers?.includes(IMAGE_FINALIZER)) return done();
    const mgmt = host.hv?.mgmt;
    if (!mgmt) {
      await writeStatusIfChanged(deps.store, image, computeZImageStatus(image, host.hostName, { kind: 'deleting' }, clock()));
      return requeueAfter(hostRetryMs);
    }
    const name = imageNameOf(image);
    const record = await mgmt.describeImage(name);
    // only the image this resource made goes; one someone else made under this name stays
    if (record && record.owner === image.metadata.uid) await mgmt.deleteImage(name);
    await removeFinalizer(deps.store, image, IMAGE_FINALIZER);
    log.info({ image: name }, 'image removed');
    return done();
  }

  async function make(image: ZImage, { hostName, hv }: ImageHost, log: Logger, signal: AbortSignal, progress: ProgressWriter): Promise<ImageOutcome> {
    if (!hv) return { kind: 'waiting', reason: HOST_NOT_FOUND, message: hostNotKnown(hostName) };
    if (!hv.mgmt) return { kind: 'waiting', reason: ImageReasons.noManagementGuest, message: `ZHost ${hostName} has no management guest configured` };
    const name = imageNameOf(image);
    const how = image.spec.source.capture ? ImageReasons.captured : ImageReasons.imported;
    const existing = await hv.mgmt.describeImage(name, { signal });
    if (existing && existing.owner === image.metadata.uid) return { kind: 'ready', record: existing, how };
    try {
      const ctx = { image, hv, mgmt: hv.mgmt, store: deps.store, log, signal, onProgress: progress.onProgress };
      const record = await (image.spec.source.capture ? runCapture(ctx) : runImport(ctx)).finally(() => progress.flush());
      deps.events.event(image, 'Normal', how, `image ${name} ${how.toLowerCase()} (${record.diskSizeUnits}, md5 ${record.md5sum})`);
      return { kind: 'ready', record, how };
    } catch (err) {
      if (err instanceof HypervisorError && err.retryable) throw err; // the runtime backs off
      const fields = fieldsOf(err);
      if (!fields || !isZvmError(err)) throw err;
      const reason = err instanceof HypervisorError
        ? (image.spec.source.capture ? ImageReasons.captureFailed : ImageReasons.importFailed)
        : (REASONS[err.code] ?? ImageReasons.failed);
      log.warn({ err, image: name }, 'image source failed');
      deps.events.event(image, 'Warning', reason, fields.errmsg);
      return { kind: 'failed', reason, message: fields.errmsg, error: fields };
    }
  }

  return {
    kind: 'ZImage',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const image = await deps.store.get<ZImage>('ZImage', key);
      if (!image) return done();
      const host = lookupHost(deps.hypervisors, image);
      const log = reconcileLogger(deps.log, 'ZImage', key).child({ host: host.hostName });
      if (image.metadata.deletionTimestamp) return remove(image, host, log);
      if (!image.metadata.finalizers?.includes(IMAGE_FINALIZER)) {
        // before anything is written to the repository, so a delete can never leak the file
        await addFinalizer(deps.store, image, IMAGE_FINALIZER);
        return requeueAfter(1);
      }
      if (isSettled(image)) {
        // an export's progress that REST left on the annotation: the one author writes it into status
        const exported = withExportProgress(image);
        if (exported) await writeStatusIfChanged(deps.store, image, exported);
        return done();
      }
      const operation = image.spec.source.capture ? 'capture' : 'import';
      const progress = statusProgressWriter({ store: deps.store, kind: 'ZImage', key, operation, log });
      const outcome = await make(image, host, log, signal, progress);
      // progress writes moved the object on: the final status goes onto the current one
      const current = progress.wrote() ? ((await deps.store.get<ZImage>('ZImage', key)) ?? image) : image;
      const status = computeZImageStatus(current, host.hostName, outcome, clock());
      // a failure has its own Event (above); waiting for a host needs a person too
      if (outcome.kind === 'waiting') return reportProblem(deps, current, status, hostRetryMs);
      await writeStatusIfChanged(deps.store, current, status);
      return done();
    },
  };
}
