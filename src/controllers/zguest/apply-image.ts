import { HypervisorError } from '../../errors.js';
import { ImageError, ImageRs } from '../../hypervisor/image-port.js';
import type { CallOptions, Hypervisor } from '../../hypervisor/port.js';
import type { Step } from './steps.js';

type DeployStep = Extract<Step, { op: 'deployImage' }>;

/**
 * One deploy through the host's management guest. An image the repository does not hold yet is
 * retried with backoff (its ZImage may still be importing); other refusals are terminal.
 */
export async function applyImageDeploy(hv: Hypervisor, userid: string, step: DeployStep, opts: CallOptions): Promise<void> {
  if (!hv.mgmt) {
    throw new ImageError('guest_deploy', 14, `Failed to deploy image to userid: '${userid}', host ${hv.hostName} has no management guest configured`, { module: 'guest' });
  }
  try {
    await hv.mgmt.deployImage({ userid, image: step.image, vdev: step.vdev, transportFiles: step.transportFiles, remoteHost: step.remoteHost }, opts);
  } catch (err) {
    if (err instanceof ImageError && err.module === 'image' && err.rs === ImageRs.notFound) {
      throw new HypervisorError(err.fn, err.rc, err.rs, err.message, { retryable: true, cause: err });
    }
    throw err;
  }
}
