import type { ZGuest } from '../../api/index.js';
import type { PowerState } from '../../hypervisor/index.js';
import { normalizeVdev, type ResolvedDisk } from './definition.js';
import type { Problem, Step } from './steps.js';

/** Image names are case-insensitive, as feilong's image table. */
export function sameImage(a: string | undefined, b: string | undefined): boolean {
  return (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
}

/** spec.image is not the image status says is on the root disk. */
export function wantsDeploy(guest: ZGuest): boolean {
  return Boolean(guest.spec.image) && !sameImage(guest.spec.image, guest.status?.deployedImage);
}

/**
 * Pure: deploy spec.image onto the root disk (spec.imageDeploy.vdev, else the boot disk, else the
 * first disk, else 0100) when it differs from status.deployedImage. Only while the guest is off:
 * the disk is written through a link from the management guest, which a running guest blocks.
 */
export function planImageDeploy(guest: ZGuest, disks: ResolvedDisk[], power: PowerState): { steps: Step[]; problems: Problem[] } {
  const image = guest.spec.image;
  if (!image || !wantsDeploy(guest)) return { steps: [], problems: [] };
  if (power !== 'off') {
    return { steps: [], problems: [{ reason: 'DeployRequiresStop', severity: 'blocked', message: `image ${image} is deployed only while the guest is off` }] };
  }
  const opts = guest.spec.imageDeploy ?? {};
  const vdev = normalizeVdev(opts.vdev ?? (disks.find((d) => d.boot) ?? disks[0])?.vdev ?? '0100');
  const step: Step = { op: 'deployImage', image, vdev };
  if (opts.transportFiles) step.transportFiles = opts.transportFiles;
  if (opts.remoteHost) step.remoteHost = opts.remoteHost;
  return { steps: [step], problems: [] };
}
