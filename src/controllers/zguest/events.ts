import type { DirectoryRewrite, StatementFamily } from '../../hypervisor/index.js';
import type { Step, StepOp } from './steps.js';
import { FIELD_OF_FAMILY } from './plan-directory.js';
import { HYPERVISOR_ERROR } from '../kit/index.js';

/** Event reasons are named constants (KubeVirt's events.go habit), never inline strings. */
export const EventReasons = {
  created: 'Created',
  deleted: 'Deleted',
  orphaned: 'Orphaned',
  diskAdded: 'DiskAdded',
  diskRemoved: 'DiskRemoved',
  started: 'Started',
  stopped: 'Stopped',
  paused: 'Paused',
  unpaused: 'Unpaused',
  resized: 'Resized',
  nicCreated: 'NicCreated',
  nicDeleted: 'NicDeleted',
  nicCoupled: 'NicCoupled',
  nicUncoupled: 'NicUncoupled',
  rebooted: 'Rebooted',
  reset: 'Reset',
  hypervisorError: HYPERVISOR_ERROR,
  approvedPlanApplied: 'ApprovedPlanApplied',
} as const;

export interface StepEvent {
  reason: string;
  message: string;
}

const NORMAL: Partial<Record<StepOp, (step: Step, userid: string) => StepEvent | undefined>> = {
  createGuest: (_s, u) => ({ reason: EventReasons.created, message: `defined guest ${u}` }),
  removeFinalizer: (s, u) =>
    s.op === 'removeFinalizer' && s.leftOnHost ? { reason: EventReasons.orphaned, message: `left guest ${u} on the host` } : undefined,
  deleteGuest: (_s, u) => ({ reason: EventReasons.deleted, message: `deleted guest ${u} and its disks` }),
  addDisk: (s, u) => (s.op === 'addDisk' ? { reason: EventReasons.diskAdded, message: `added disk ${s.disk.vdev} (${s.disk.size}, ${s.disk.pool}) to ${u}` } : undefined),
  removeDisk: (s, u) => (s.op === 'removeDisk' ? { reason: EventReasons.diskRemoved, message: `removed disk ${s.vdev} from ${u}` } : undefined),
  start: (_s, u) => ({ reason: EventReasons.started, message: `logged on ${u}` }),
  stop: (_s, u) => ({ reason: EventReasons.stopped, message: `logged off ${u}` }),
  pause: (_s, u) => ({ reason: EventReasons.paused, message: `paused ${u}` }),
  unpause: (_s, u) => ({ reason: EventReasons.unpaused, message: `unpaused ${u}` }),
  punchGrowRootScript: (s, u) => (s.op === 'punchGrowRootScript' ? { reason: EventReasons.resized, message: `punched the grow-root-volume script to the reader of ${u}` } : undefined),
  setDirectoryShare: (s, u) => (s.op === 'setDirectoryShare' ? { reason: EventReasons.resized, message: `set SHARE ${s.share} in the directory of ${u}` } : undefined),
  setDirectoryCpus: (s, u) => (s.op === 'setDirectoryCpus' ? { reason: EventReasons.resized, message: `set ${s.count} CPUs in the directory of ${u}` } : undefined),
  defineActiveCpus: (s, u) => (s.op === 'defineActiveCpus' ? { reason: EventReasons.resized, message: `defined ${s.count} CPUs on running ${u}` } : undefined),
  rewriteDirectory: (s, u) => (s.op === 'rewriteDirectory' ? { reason: EventReasons.resized, message: `rewrote ${describeRewrite(s)} in the directory of ${u}` } : undefined),
  createNic: (s, u) => (s.op === 'createNic' ? { reason: EventReasons.nicCreated, message: `defined NIC ${s.vdev} of ${u}` } : undefined),
  deleteNic: (s, u) => (s.op === 'deleteNic' ? { reason: EventReasons.nicDeleted, message: `deleted NIC ${s.vdev} of ${u}` } : undefined),
  coupleNic: (s, u) => (s.op === 'coupleNic' ? { reason: EventReasons.nicCoupled, message: `coupled NIC ${s.vdev} of ${u} to vswitch ${s.vswitch}` } : undefined),
  uncoupleNic: (s, u) => (s.op === 'uncoupleNic' ? { reason: EventReasons.nicUncoupled, message: `uncoupled NIC ${s.vdev} of ${u}` } : undefined),
  ackToken: (s, u) =>
    s.op === 'ackToken' && s.cycled
      ? { reason: s.token === 'reboot' ? EventReasons.rebooted : EventReasons.reset, message: `${s.token} of ${u} requested at ${s.value} done` }
      : undefined,
};

/** The Normal event an applied step deserves, if any. */
export function eventForStep(step: Step, userid: string): StepEvent | undefined {
  return NORMAL[step.op]?.(step, userid);
}

/** 'memory 4G, 2 CPUs, account, comments': what a rewrite of the entry changed. */
export function describeRewrite(s: DirectoryRewrite): string {
  const parts = [
    s.memory && `memory ${s.memory}`,
    s.maxMemory && `max memory ${s.maxMemory}`,
    s.cpus !== undefined && `${s.cpus} CPUs`,
    s.share && `SHARE ${s.share}`,
    ...Object.keys(s.statements ?? {}).map((f) => FIELD_OF_FAMILY[f as StatementFamily]),
  ];
  return parts.filter(Boolean).join(', ');
}
