import { HOST_UNREACHABLE, memoryToMB, type CreatedDisk, type ZGuest, type ZGuestStatus } from '../../api/index.js';
import type { HypervisorError } from '../../errors.js';
import type { ResolvedZGuest } from './class.js';
import type { GuestState, PowerState } from '../../hypervisor/index.js';
import { mergeConditions, sameStatus, type ConditionInput } from '../conditions.js';
import { HOST_NOT_FOUND, HYPERVISOR_ERROR, type DriftFact, type OutageFact, type StatusRebase } from '../kit/index.js';
import { normalizeVdev, resolveDisks, type GuestDefaults } from './definition.js';
import { computePhase } from './phase.js';
import { isDeleting } from './plan.js';
import { desiredPower } from './plan-converge.js';
import { computeConfiguredDisks, computeNetworkCondition, computeNicStatus } from './status-network.js';
import type { Plan, Problem, Step } from './steps.js';
import { computeDeployedImage, imageDeployedCondition } from './status-image.js';
import { DRIFTED, driftCondition, DriftReasons } from './drift-status.js';
import { ACK_FIELD } from './tokens.js';
import { computeLoggedOnWith, pendingRestart } from './restart.js';

export const ConditionTypes = {
  ready: 'Ready',
  synced: 'Synced',
  provisioned: 'Provisioned',
  restartRequired: 'RestartRequired',
  networkConfigured: 'NetworkConfigured',
  drifted: DRIFTED,
} as const;

export interface StatusInput {
  guest: ResolvedZGuest;
  hostName: string;
  /** the host state after this reconcile acted */
  observed: GuestState | undefined;
  /** the host state before it acted (what a running guest logged on with, when nothing was recorded) */
  before?: GuestState;
  /** the plan that describes the state after acting (its problems and ownership) */
  plan: Plan;
  /** hypervisor steps remain (a transition is under way) */
  pending: boolean;
  failure?: HypervisorError;
  applied: Step[];
  /** the guest's effective values where its spec is silent (defaults.ts) */
  defaults: GuestDefaults;
  now: Date;
  /** the host's SMAPI does not answer (the outage tracker's fact): nothing was read from it this run */
  outage?: OutageFact;
  /** the drift detector saw the guest differ from status (its fact), not yet reported */
  drift?: DriftFact;
}

const SEVERITY_ORDER: Problem['severity'][] = ['conflict', 'error', 'blocked'];

function mainProblem(problems: Problem[]): Problem | undefined {
  return [...problems].sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity))[0];
}

/**
 * Pure: the whole status from spec, observation, plan, outcome and the observers' facts. The one
 * place a guest's Ready (readyCondition) and phase (computePhase) are decided; a new condition from
 * a fact is one more entry of `conditions`.
 */
export function computeZGuestStatus(input: StatusInput): ZGuestStatus {
  if (input.outage || input.drift) return lastSeenStatus(input);
  const { guest, observed, failure } = input;
  const problem = mainProblem(input.plan.problems);
  const conflict = problem?.severity === 'conflict';
  const visible = conflict || input.plan.ownership === 'unknown' ? undefined : observed;
  const provisioned = isProvisioned(input, visible);
  const previous = guest.status ?? {};
  const status: ZGuestStatus = {
    ...previous,
    observedGeneration: guest.metadata.generation,
    host: input.hostName,
    powerState: visible?.power,
    vcpus: visible ? (visible.active?.cpus ?? visible.directory.cpus) : undefined,
    memory: visible ? runningMemory(visible) : undefined,
    disks: createdDisks(guest, visible, input.defaults),
    nics: computeNicStatus(guest, visible),
    network: visible ? guest.spec.network : undefined,
    configuredDisks: computeConfiguredDisks(guest, visible),
    lastError: failure ? failure.toFields() : problem ? previous.lastError : undefined,
    ...acknowledged(guest, input.applied),
    deployedImage: computeDeployedImage(guest, input.applied),
    effective: input.defaults,
  };
  const loggedOn = input.applied.some((s) => s.op === 'start');
  status.loggedOnWith = visible ? computeLoggedOnWith({ recorded: previous.loggedOnWith, before: input.before, after: visible, loggedOn }) : previous.loggedOnWith;
  const restart = visible ? pendingRestart(status.loggedOnWith, visible) : (previous.pendingRestart ?? []);
  status.pendingRestart = restart.length > 0 ? restart : undefined;
  status.phase = computePhase({
    unreachable: false,
    deleting: isDeleting(guest),
    conflict,
    failed: Boolean(failure) || problem?.severity === 'error',
    provisioned,
    desired: desiredPower(guest),
    power: visible?.power,
  });
  const ready = readyCondition(input, visible, provisioned, problem);
  const conditions: ConditionInput[] = [
    ready,
    syncedCondition(failure, problem),
    provisionedCondition(input, visible, provisioned),
    restartCondition(guest, visible, restart),
    ...[imageDeployedCondition(guest, status.deployedImage, input.plan.problems)].filter((c): c is ConditionInput => c !== undefined),
    computeNetworkCondition(guest, visible),
    ...[driftCondition(previous.conditions, ready)].filter((c): c is ConditionInput => c !== undefined),
  ];
  status.conditions = mergeConditions(previous.conditions, conditions, input.now.toISOString(), guest.metadata.generation);
  return JSON.parse(JSON.stringify(status)) as ZGuestStatus;
}

/**
 * Nothing was read from the host this run (it does not answer, or a drift is reported before the
 * repair): what was last seen, with what the observer found. The rest (disks, Synced) stays as it was.
 */
function lastSeenStatus(input: StatusInput): ZGuestStatus {
  const { guest, drift, outage } = input;
  const previous = guest.status ?? {};
  const powerState = drift && drift.finding !== 'missing' ? drift.finding : previous.powerState as PowerState | undefined;
  const ready = readyCondition(input, undefined, false, undefined);
  const phase = computePhase({
    unreachable: Boolean(outage), deleting: isDeleting(guest), conflict: false, failed: false,
    provisioned: drift?.finding !== 'missing', desired: desiredPower(guest), power: powerState,
  });
  const conditions = [ready, ...[driftCondition(previous.conditions, ready, outage ? undefined : drift)].filter((c): c is ConditionInput => c !== undefined)];
  const status: ZGuestStatus = { ...previous, powerState, phase, conditions: mergeConditions(previous.conditions, conditions, input.now.toISOString(), previous.observedGeneration) };
  return JSON.parse(JSON.stringify(status)) as ZGuestStatus;
}

/** What the guest runs with while logged on (a directory change waits for the next logon), else the directory's. */
function runningMemory(observed: GuestState): string {
  const mb = observed.power !== 'off' ? observed.active?.memoryMB : undefined;
  if (mb === undefined) return observed.directory.memory;
  return mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
}

function missingDisks(input: StatusInput, observed: GuestState): string[] {
  const present = new Set(observed.directory.disks.map((d) => normalizeVdev(d.vdev)));
  return resolveDisks(input.guest, input.defaults).map((d) => d.vdev).filter((v) => !present.has(v));
}

function isProvisioned(input: StatusInput, observed: GuestState | undefined): boolean {
  return observed !== undefined && missingDisks(input, observed).length === 0;
}

/** Disks in the feilong output form: spec disks present in the directory, plus earlier records still present. */
function createdDisks(guest: ZGuest, observed: GuestState | undefined, defaults: GuestDefaults): CreatedDisk[] | undefined {
  if (!observed) return undefined;
  const present = new Set(observed.directory.disks.map((d) => normalizeVdev(d.vdev)));
  const specDisks = guest.spec.disks ?? [];
  const fromSpec = resolveDisks(guest, defaults)
    .map((d, i): CreatedDisk => {
      const format = d.boot ? 'none' : specDisks[i]?.format;
      return { vdev: d.vdev, size: d.size, ...(format ? { format } : {}), ...(d.boot ? { isBootDisk: true } : {}), diskPool: d.pool };
    })
    .filter((d) => present.has(d.vdev));
  // a disk keeps the record of what it was made with (a changed size, pool or format is refused: plan-disk-changes.ts)
  const made = new Map((guest.status?.disks ?? []).map((d) => [normalizeVdev(d.vdev), d]));
  fromSpec.forEach((d, i) => (fromSpec[i] = made.get(d.vdev) ?? d));
  const known = new Set(fromSpec.map((d) => d.vdev));
  const stillThere = (guest.status?.disks ?? []).filter((d) => !known.has(normalizeVdev(d.vdev)) && present.has(normalizeVdev(d.vdev)));
  return [...fromSpec, ...stillThere];
}

type Acks = Pick<ZGuestStatus, 'lastHandledRebootAt' | 'lastHandledResetAt' | 'lastHandledGrowRootVolumeAt'>;

function acknowledged(guest: ZGuest, applied: Step[]): Acks {
  const out: Acks = {
    lastHandledRebootAt: guest.status?.lastHandledRebootAt,
    lastHandledResetAt: guest.status?.lastHandledResetAt,
    lastHandledGrowRootVolumeAt: guest.status?.lastHandledGrowRootVolumeAt,
  };
  for (const s of applied) if (s.op === 'ackToken') out[ACK_FIELD[s.token]] = s.value;
  return out;
}

const TRANSITION: Record<PowerState, Record<PowerState, string>> = {
  on: { on: 'GuestRunning', off: 'Starting', paused: 'Unpausing' },
  off: { on: 'Stopping', off: 'GuestStopped', paused: 'Stopping' },
  paused: { on: 'Pausing', off: 'Starting', paused: 'GuestPaused' },
};

/** A guest stopped on purpose is Ready: Argo CD must not wait forever on Progressing. */
function readyCondition(input: StatusInput, observed: GuestState | undefined, provisioned: boolean, problem: Problem | undefined): ConditionInput {
  const not = (reason: string, message: string): ConditionInput => ({ type: ConditionTypes.ready, status: 'False', reason, message });
  if (input.outage) return { type: ConditionTypes.ready, status: 'Unknown', reason: HOST_UNREACHABLE, message: input.outage.message };
  if (isDeleting(input.guest)) return not('Deleting', 'the guest is being deleted');
  if (input.failure) return not(HYPERVISOR_ERROR, input.failure.message);
  if (problem) return not(problem.reason, problem.message);
  if (input.drift) return not(DriftReasons.detected, input.drift.message);
  if (!provisioned || !observed) return not('Provisioning', 'the guest is being defined on the host');
  const desired = desiredPower(input.guest);
  const reason = TRANSITION[desired][observed.power];
  if (observed.power !== desired) return not(reason, `the guest is ${observed.power}, spec asks for ${desired}`);
  if (input.pending) return not('Progressing', 'changes are being applied');
  return { type: ConditionTypes.ready, status: 'True', reason, message: `the guest is ${observed.power} as requested` };
}

function syncedCondition(failure: HypervisorError | undefined, problem: Problem | undefined): ConditionInput {
  if (failure) {
    return { type: ConditionTypes.synced, status: 'False', reason: HYPERVISOR_ERROR, message: `${failure.fn} failed (rc ${failure.rc}, rs ${failure.rs}): ${failure.message}` };
  }
  if (problem) return { type: ConditionTypes.synced, status: 'False', reason: problem.reason, message: problem.message };
  return { type: ConditionTypes.synced, status: 'True', reason: 'ReconcileSuccess', message: '' };
}

function provisionedCondition(input: StatusInput, observed: GuestState | undefined, provisioned: boolean): ConditionInput {
  const type = ConditionTypes.provisioned;
  const userid = input.guest.spec.userid.toUpperCase();
  const ownership = input.plan.ownership;
  if (ownership === 'unknown') return { type, status: 'Unknown', reason: HOST_NOT_FOUND, message: `host ${input.hostName} is not known` };
  if (ownership === 'claimed' || ownership === 'foreign') return { type, status: 'False', reason: 'UseridConflict', message: `userid ${userid} belongs to someone else` };
  if (!observed) return { type, status: 'False', reason: 'NotCreated', message: `userid ${userid} is not defined on host ${input.hostName}` };
  if (!provisioned) return { type, status: 'False', reason: 'DisksMissing', message: `disk ${missingDisks(input, observed).join(', ')} not yet created` };
  return { type, status: 'True', reason: 'Provisioned', message: `userid ${userid} is defined on host ${input.hostName}` };
}

/** Directory changes reach a logged-on guest only at its next logon (except live CPU growth); `fields` from restart.ts. */
function restartCondition(guest: ResolvedZGuest, observed: GuestState | undefined, fields: string[]): ConditionInput {
  const type = ConditionTypes.restartRequired;
  const active = observed && observed.power !== 'off' ? observed.active : undefined;
  const reasons: { reason: string; message: string }[] = [];
  if (active && active.cpus !== guest.spec.vcpus) {
    reasons.push({ reason: 'CpuChangePendingRestart', message: `running with ${active.cpus} CPUs, spec asks for ${guest.spec.vcpus}` });
  }
  const wantMB = memoryToMB(guest.spec.memory);
  if (active && wantMB !== undefined && active.memoryMB !== wantMB) {
    reasons.push({ reason: 'MemoryChangePendingRestart', message: `running with ${active.memoryMB}M memory, spec asks for ${guest.spec.memory}` });
  }
  if (fields.length > 0) reasons.push({ reason: 'DirectoryChangePendingRestart', message: `${fields.join(', ')} written to the directory` });
  if (reasons.length === 0) return { type, status: 'False', reason: 'ActiveConfigMatchesSpec', message: '' };
  return { type, status: 'True', reason: reasons[0].reason, message: `${reasons.map((r) => r.message).join('; ')}; takes effect at the next logon` };
}

function withoutProgress<S extends ZGuestStatus | undefined>(status: S): S {
  if (!status?.progress) return status;
  const { progress: _progress, ...rest } = status;
  return rest as S;
}

/** Pure: the status with the deploy progress the current object holds (written while this run deployed), or none. */
export function withProgressOf(current: ZGuest, status: ZGuestStatus): ZGuestStatus {
  const rest = withoutProgress(status);
  return current.status?.progress ? { ...rest, progress: current.status.progress } : rest;
}

/**
 * A status write that met a conflict is ridden out while only status.progress moved (a deploy's own
 * reports, apply-image.ts), and that progress is kept.
 */
export const PROGRESS_REBASE: StatusRebase<ZGuest> = {
  untouched: (stored, base) => sameStatus(withoutProgress(stored), withoutProgress(base)),
  onto: withProgressOf,
};
