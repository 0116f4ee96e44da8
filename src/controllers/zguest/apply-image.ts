import { HypervisorError } from '../../errors.js';
import { ImageError, ImageRs } from '../../hypervisor/image-port.js';
import type { CallOptions, Hypervisor } from '../../hypervisor/port.js';
import { imageNameOf, type ZImage } from '../../api/index.js';
import type { StateStore } from '../../store/port.js';
import type { Step } from './steps.js';

type DeployStep = Extract<Step, { op: 'deployImage' }>;

/**
 * One deploy through the host's management guest. An image the repository does not hold yet is
 * retried with backoff (its ZImage may still be importing); other refusals are terminal.
 */
export async function applyImageDeploy(hv: Hypervisor, userid: string, step: DeployStep, opts: CallOptions, store?: StateStore): Promise<void> {
  if (!hv.mgmt) {
    throw new ImageError('guest_deploy', 14, `Failed to deploy image to userid: '${userid}', host ${hv.hostName} has no management guest configured`, { module: 'guest' });
  }
  try {
    const osVersion = store ? await osVersionOf(store, step.image) : undefined;
    await hv.mgmt.deployImage({ userid, image: step.image, vdev: step.vdev, transportFiles: step.transportFiles, remoteHost: step.remoteHost, osVersion }, opts);
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
