import type { ZGuest } from '../../api/index.js';
import type { ConditionInput } from '../conditions.js';
import { sameImage } from './plan-image.js';
import type { Problem, Step } from './steps.js';

export const IMAGE_DEPLOYED = 'ImageDeployed';

/** status.deployedImage after this run: the image a successful deploy step wrote, else what was there. */
export function computeDeployedImage(guest: ZGuest, applied: readonly Step[]): string | undefined {
  const deployed = [...applied].reverse().find((s) => s.op === 'deployImage');
  return deployed && deployed.op === 'deployImage' ? deployed.image : guest.status?.deployedImage;
}

/** ImageDeployed: True once spec.image is on the root disk; absent while the spec names no image and none was deployed. */
export function imageDeployedCondition(guest: ZGuest, deployedImage: string | undefined, problems: readonly Problem[]): ConditionInput | undefined {
  const image = guest.spec.image;
  if (!image && !deployedImage) return undefined;
  const type = IMAGE_DEPLOYED;
  if (!image) return { type, status: 'True', reason: 'Deployed', message: `image ${deployedImage} was deployed; the spec names no image now` };
  if (sameImage(image, deployedImage)) return { type, status: 'True', reason: 'Deployed', message: `image ${image} is on the root disk` };
  const blocked = problems.find((p) => p.reason === 'DeployRequiresStop');
  if (blocked) return { type, status: 'False', reason: blocked.reason, message: blocked.message };
  return { type, status: 'False', reason: 'Deploying', message: `image ${image} is being deployed` };
}
