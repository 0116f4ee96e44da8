/**
 * What a ZVMMachine reconcile does next (docs/code-conventions.md §1), in the order the Cluster API book
 * gives for an InfraMachine: owner Machine, pause, finalizer, the cluster's infrastructure, bootstrap data,
 * then the guest (defined Stopped, bootstrap data punched to its reader, then started). Pure.
 */
import { BOOTSTRAP_PUNCHED_ANNOTATION, ZVMMACHINE_FINALIZER, type ZGuest, type ZVMCluster, type ZVMMachine } from '../../api/index.js';
import { isDeletedForMove } from '../kit/cluster-api.js';
import { hasFinalizer } from '../kit/finalizers.js';
import { buildGuest, chooseHost, isPaused, machineUserid, ownsGuest, providerIdOf, type Cluster, type Machine } from './facts.js';

export interface MachineFacts {
  zm: ZVMMachine;
  machine?: Machine;
  cluster?: Cluster;
  zvmCluster?: ZVMCluster;
  /** the ZGuest of the same name and namespace, ours or not */
  guest?: ZGuest;
  /** HOST/USERID of every other ZGuest: userids are host-global */
  taken: ReadonlySet<string>;
  /** the reader file's digest once the bootstrap Secret was read; `problem` when it cannot be used */
  bootstrap?: { digest: string } | { problem: string };
}

export type MachineStep =
  | { op: 'addFinalizer' }
  | { op: 'removeFinalizer' }
  | { op: 'setSpec'; host: string; providerID: string }
  | { op: 'createGuest'; guest: ZGuest }
  | { op: 'deleteGuest' }
  | { op: 'punchBootstrap'; host: string; userid: string }
  | { op: 'startGuest' };

export const MachineWaits = {
  owner: 'WaitingForOwner',
  paused: 'Paused',
  clusterInfrastructure: 'WaitingForClusterInfrastructure',
  bootstrapData: 'WaitingForBootstrapData',
  bootstrapInvalid: 'BootstrapDataInvalid',
  guestConflict: 'GuestConflict',
  guestProvisioning: 'GuestProvisioning',
  guestFailed: 'GuestFailed',
  guestStarting: 'GuestStarting',
  deleting: 'Deleting',
} as const;
export type MachineWait = (typeof MachineWaits)[keyof typeof MachineWaits];

export interface MachinePlan {
  steps: MachineStep[];
  /** why it is not provisioned yet (absent: provisioned) */
  waiting?: { reason: MachineWait; message: string };
  host?: string;
  userid?: string;
}

const wait = (steps: MachineStep[], reason: MachineWait, message: string, where: { host?: string; userid?: string } = {}): MachinePlan => ({ steps, waiting: { reason, message }, ...where });

/** The guest's host and userid: the existing guest's, else chosen now (a userid taken on that host gets the next salt). */
export function placeGuest(f: MachineFacts, machine: Machine): { host: string; userid: string } {
  if (f.guest && ownsGuest(f.zm, f.guest)) return { host: f.guest.spec.host ?? chooseHost(f.zm, machine, f.zvmCluster), userid: f.guest.spec.userid.toUpperCase() };
  const host = chooseHost(f.zm, machine, f.zvmCluster);
  let salt = 0;
  while (f.taken.has(`${host}/${machineUserid(f.zm, salt)}`)) salt++;
  return { host, userid: machineUserid(f.zm, salt) };
}

function planDeletion(f: MachineFacts): MachinePlan {
  if (!hasFinalizer(f.zm, ZVMMACHINE_FINALIZER)) return { steps: [] };
  // `clusterctl move` deletes the source copy: its guest (and ZGuest) are the target copy's now
  if (isDeletedForMove(f.zm)) return { steps: [{ op: 'removeFinalizer' }] };
  if (f.guest && ownsGuest(f.zm, f.guest)) {
    return wait(f.guest.metadata.deletionTimestamp ? [] : [{ op: 'deleteGuest' }], MachineWaits.deleting, `waiting for guest ${f.guest.spec.userid.toUpperCase()} to be deleted`);
  }
  return { steps: [{ op: 'removeFinalizer' }] };
}

export function planMachine(f: MachineFacts): MachinePlan {
  const { zm, machine } = f;
  if (zm.metadata.deletionTimestamp) return planDeletion(f);
  if (!machine) return wait([], MachineWaits.owner, 'waiting for Cluster API to set the owner Machine');
  if (isPaused(zm, f.cluster)) return wait([], MachineWaits.paused, 'the Cluster or this object is paused');
  const steps: MachineStep[] = hasFinalizer(zm, ZVMMACHINE_FINALIZER) ? [] : [{ op: 'addFinalizer' }];
  if (f.cluster?.status?.initialization?.infrastructureProvisioned !== true) {
    return wait(steps, MachineWaits.clusterInfrastructure, 'waiting for the cluster\'s infrastructure (ZVMCluster) to be provisioned');
  }
  if (!machine.spec.bootstrap?.dataSecretName) return wait(steps, MachineWaits.bootstrapData, 'waiting for the bootstrap provider to write the Machine\'s bootstrap data');
  if (f.guest && !ownsGuest(zm, f.guest)) return wait(steps, MachineWaits.guestConflict, `ZGuest ${f.guest.metadata.name} exists and does not belong to this ZVMMachine`);
  const where = placeGuest(f, machine);
  const providerID = providerIdOf(where.host, where.userid);
  if (zm.spec.host !== where.host || zm.spec.providerID !== providerID) steps.push({ op: 'setSpec', host: where.host, providerID });
  const guest = f.guest;
  if (!guest) return wait([...steps, { op: 'createGuest', guest: buildGuest(zm, where.host, where.userid) }], MachineWaits.guestProvisioning, `defining guest ${where.userid} on ${where.host}`, where);
  if (guest.status?.phase === 'Failed' || guest.status?.phase === 'Conflict') {
    return wait(steps, MachineWaits.guestFailed, `guest ${where.userid}: ${guest.status.conditions?.find((c) => c.type === 'Ready')?.message ?? guest.status.phase}`, where);
  }
  if (!guest.metadata.annotations?.[BOOTSTRAP_PUNCHED_ANNOTATION]) {
    if (f.bootstrap && 'problem' in f.bootstrap) return wait(steps, MachineWaits.bootstrapInvalid, f.bootstrap.problem, where);
    // the directory entry and its disks exist once the guest controller reports it Stopped
    if (guest.status?.phase !== 'Stopped' || !f.bootstrap) return wait(steps, MachineWaits.guestProvisioning, `waiting for guest ${where.userid} to be defined`, where);
    return wait([...steps, { op: 'punchBootstrap', ...where }, { op: 'startGuest' }], MachineWaits.guestStarting, `bootstrap data punched to ${where.userid}'s reader`, where);
  }
  if (guest.spec.powerState === 'Stopped') steps.push({ op: 'startGuest' });
  if (guest.status?.phase !== 'Running') return wait(steps, MachineWaits.guestStarting, `waiting for guest ${where.userid} to log on`, where);
  return { steps, ...where };
}
