import type { DirectoryRewrite, DiskRequest, GuestDefinition } from '../../hypervisor/index.js';
import type { Ownership } from './ownership.js';

export type Token = 'reboot' | 'reset' | 'growRootVolume';

/** One minimal action: a single hypervisor call, a single store write, or a status acknowledgement. */
export type Step =
  | { op: 'addFinalizer' }
  /** leftOnHost: the z/VM guest stays (deletionPolicy Orphan, or not ours to delete) */
  | { op: 'removeFinalizer'; leftOnHost?: boolean }
  | { op: 'createGuest'; definition: GuestDefinition }
  | { op: 'deleteGuest' }
  | { op: 'addDisk'; disk: DiskRequest }
  | { op: 'removeDisk'; vdev: string }
  | { op: 'start' }
  | { op: 'stop'; token?: Token }
  | { op: 'pause' }
  | { op: 'unpause' }
  | { op: 'setDirectoryCpus'; count: number }
  | { op: 'setDirectoryShare'; share: string }
  | { op: 'punchGrowRootScript'; osVersion: string }
  /** active: the CPU count the running guest has (observed), so the host is not asked again */
  | { op: 'defineActiveCpus'; count: number; active: number }
  /** one locked rewrite of the entry: storage, max storage, statement families; a CPU count and SHARE change of the same plan ride in it */
  | ({ op: 'rewriteDirectory' } & DirectoryRewrite)
  /** writes spec.image onto the root disk through the management guest (while the guest is off) */
  | { op: 'deployImage'; image: string; vdev: string; transportFiles?: string; remoteHost?: string }
  /** directory NICs (NICDEF): a running guest sees them at its next logon */
  | { op: 'createNic'; vdev: string; macId?: string }
  | { op: 'deleteNic'; vdev: string }
  | { op: 'coupleNic'; vdev: string; vswitch: string }
  | { op: 'uncoupleNic'; vdev: string }
  /** records in status that a one-shot annotation token was handled */
  | { op: 'ackToken'; token: Token; value: string; cycled: boolean };

export type StepOp = Step['op'];

/** Why the spec cannot (yet) be realised. Reasons are condition reasons, so they are PascalCase. */
export type ProblemReason =
  | 'HostNotFound'
  | 'UseridConflict'
  | 'InvalidResize'
  | 'InvalidDisks'
  | 'DiskRemovalRequiresStop'
  | 'InvalidNics'
  | 'Relocated'
  | 'DeployRequiresStop'
  | 'ClassNotFound'
  | 'ClassRevisionUnavailable'
  | 'ClassIncomplete';

export interface Problem {
  reason: ProblemReason;
  message: string;
  /** 'error' makes the phase Failed; 'blocked' waits for something the user or the guest must do */
  severity: 'error' | 'blocked' | 'conflict';
}

export interface Plan {
  steps: Step[];
  problems: Problem[];
  ownership: Ownership;
}

const STORE_OPS: ReadonlySet<StepOp> = new Set<StepOp>(['addFinalizer', 'removeFinalizer', 'ackToken']);

/** True for steps that call the hypervisor (as opposed to store writes and acknowledgements). */
export function isHypervisorStep(step: Step): boolean {
  return !STORE_OPS.has(step.op);
}
