import { HypervisorError } from '../../errors.js';
import { type CallOptions, type Hypervisor, ImageError, ImageRs } from '../../hypervisor/index.js';
import { imageNameOf, type ZImage } from '../../api/index.js';
import type { Logger } from '../../log.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import { statusProgressWriter } from '../kit/transfer-progress.js';
import type { Step } from './steps.js';

type DeployStep = Extract<Step, { op: 'deployImage' }>;

/** The ZGuest deployed to: its store holds the ZImages (their OS version) and takes the deploy's status.progress. */
export interface DeployTarget {
  store: StateStore;
  key: ObjectKey;
  log: Logger;
}

/**
 * One deploy through the host's management guest. An image the repository does not hold yet is
 * retried with backoff (its ZImage may still be importing); other refusals are terminal. With a
 * target, the transfer's progress goes into the guest's status.progress (throttled, never failing
 * the deploy); the caller then writes its final status onto a fresh read of the guest.
 */
export async function applyImageDeploy(hv: Hypervisor, userid: string, step: DeployStep, opts: CallOptions, target?: DeployTarget): Promise<void> {
  if (!hv.mgmt) {
    throw new ImageError('guest_deploy', 14, `Failed to deploy image to userid: '${userid}', host ${hv.hostName} has no management guest configured`, { module: 'guest' });
  }
  const progress = target ? statusProgressWriter({ ...target, kind: 'ZGuest', operation: 'deploy' }) : undefined;
  try {
    const osVersion = target ? await osVersionOf(target.store, step.image) : undefined;
    const request = { userid, image: step.image, vdev: step.vdev, transportFiles: step.transportFiles, remoteHost: step.remoteHost, osVersion };
    await hv.mgmt.deployImage(request, { ...opts, ...(progress ? { onProgress: progress.onProgress } : {}) }).finally(() => progress?.flush());
  } catch (err) {
    if (err instanceof ImageError && err.module === 'image' && err.rs === ImageRs.notFound) {
      throw new HypervisorError(err.fn, err.rc, err.rs, err.message, { retryable: true, cause: err });
    }
    throw err;
  }
}

/** The OS version a ready ZImage of that repository name records: it saves the repository search. */
async function osVersionOf(store: StateStore, image: string): Promise<string | undefined> {
  const { items } = await store.list<ZImage>('ZImage');
  return items.find((z) => imageNameOf(z) === image && z.status?.osVersion)?.status?.osVersion;
}
