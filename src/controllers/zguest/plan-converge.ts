import { Annotations, memoryToMB, powerOfSpec, type ZGuest } from '../../api/index.js';
import { type DirectoryRewrite, type GuestState, normalizeShare, type PowerState } from '../../hypervisor/index.js';
import {
  buildDefinition,
  duplicateVdevs,
  normalizeVdev,
  resolveDisks,
  sameMemory,
  toDiskRequest,
  type ResolvedDisk,
} from './definition.js';
import type { Ownership } from './ownership.js';
import { planNics } from './plan-nics.js';
import { planDiskChanges } from './plan-disk-changes.js';
import { maxCpusAfter, planStatementEdit } from './plan-directory.js';
import type { PlanInput } from './plan.js';
import type { Problem, Step } from './steps.js';
import { isCycleToken, pendingTokens } from './tokens.js';
import { planImageDeploy } from './plan-image.js';

interface Converge {
  steps: Step[];
  problems: Problem[];
}

export function desiredPower(guest: ZGuest): PowerState {
  return powerOfSpec(guest.spec.powerState);
}

/**
 * Plans against a projected state that each step advances: create, add missing disks, converge NICs, resize the
 * directory, cycle for reboot/reset tokens, stop, remove disks (only while off), power up, acknowledge.
 */
export function planConverge(input: PlanInput, ownership: Ownership): Converge {
  const { guest, observed, defaults } = input;
  const disks = resolveDisks(guest, defaults);
  const dups = duplicateVdevs(disks);
  if (dups.length > 0) {
    return { steps: [], problems: [{ reason: 'InvalidDisks', severity: 'error', message: `several disks resolve to vdev ${dups.join(', ')}` }] };
  }
  const changed = planDiskChanges(disks, guest.status?.disks);
  if (changed.length > 0) return { steps: [], problems: changed };
  const steps: Step[] = [];
  const problems: Problem[] = [];
  const desired = desiredPower(guest);
  const tokens = pendingTokens(guest);
  let power: PowerState = observed?.power ?? 'off';
  const cycling = power !== 'off' && tokens.some((t) => t.act && isCycleToken(t.token));

  if (!observed) steps.push({ op: 'createGuest', definition: buildDefinition(guest, defaults) });
  const present = new Set(observed?.directory.disks.map((d) => normalizeVdev(d.vdev)) ?? []);
  for (const d of disks) if (!present.has(d.vdev)) steps.push({ op: 'addDisk', disk: toDiskRequest(d) });
  const nics = planNics(guest, observed);
  steps.push(...nics.steps);
  problems.push(...nics.problems);
  if (observed) planResize(input, ownership, observed, { live: !cycling && desired !== 'off' }, steps, problems);

  if (cycling) {
    steps.push({ op: 'stop', token: tokens.find((t) => t.act && isCycleToken(t.token))?.token });
    power = 'off';
  }
  if (desired === 'off' && power !== 'off') {
    steps.push({ op: 'stop' });
    power = 'off';
  }
  planDiskRemovals(guest, observed, ownership, disks, power, steps, problems);
  const deploy = planImageDeploy(guest, disks, power);
  steps.push(...deploy.steps);
  problems.push(...deploy.problems);
  steps.push(...planPowerUp(power, desired));
  // grow_root_volume: the script waits in the reader for the guest's next start
  const grow = tokens.find((t) => t.token === 'growRootVolume' && t.act);
  if (grow) steps.push({ op: 'punchGrowRootScript', osVersion: guest.metadata.annotations?.[Annotations.growRootVolumeOsVersion] ?? '' });
  for (const t of tokens) steps.push({ op: 'ackToken', token: t.token, value: t.value, cycled: cycling && t.act && isCycleToken(t.token) });
  return { steps, problems };
}

/**
 * Directory first (takes effect at next logon): storage, CPUs, SHARE and every statement the spec renders
 * differently (plan-directory.ts); live CPU growth only when it is an increase on a running guest.
 */
function planResize(input: PlanInput, ownership: Ownership, observed: GuestState, opts: { live: boolean }, steps: Step[], problems: Problem[]): void {
  const { guest, defaults } = input;
  const { spec } = guest;
  const dir = observed.directory;
  const userid = observed.userid;
  const edit: DirectoryEdit = planStatementEdit(guest, observed, defaults, ownership);
  const maxCpus = maxCpusAfter(edit, observed, spec.maxCpus ?? defaults.maxCpus);
  const cpusFit = spec.vcpus <= maxCpus;
  if (!cpusFit) {
    problems.push({
      reason: 'InvalidResize',
      severity: 'error',
      message: `vcpus ${spec.vcpus} exceeds the maximum of ${maxCpus} virtual CPUs (MACHINE ESA) of ${userid}`,
    });
  } else {
    if (dir.cpus !== spec.vcpus) edit.cpus = spec.vcpus;
    // a CPU count change rewrites SHARE to the default, so a chosen share is written after it
    const share = spec.share ? normalizeShare(spec.share) : undefined;
    if (share && (dir.cpus !== spec.vcpus || dir.share !== share)) edit.share = share;
  }
  if (!sameMemory(dir.memory, spec.memory)) {
    const want = memoryToMB(spec.memory) ?? 0;
    const maxMemory = edit.maxMemory ?? dir.maxMemory;
    const max = memoryToMB(maxMemory) ?? Number.MAX_SAFE_INTEGER;
    if (want > max) {
      problems.push({ reason: 'InvalidResize', severity: 'error', message: `memory ${spec.memory} exceeds the maximum storage ${maxMemory} of ${userid}` });
    } else {
      edit.memory = spec.memory;
    }
  }
  steps.push(...directorySteps(edit));
  const live = cpusFit && opts.live && (spec.resizePolicy ?? 'LiveWhenPossible') === 'LiveWhenPossible';
  if (live && observed.power === 'on' && observed.active && spec.vcpus > observed.active.cpus) {
    steps.push({ op: 'defineActiveCpus', count: spec.vcpus, active: observed.active.cpus });
  }
}

type DirectoryEdit = DirectoryRewrite;

/**
 * A change of storage or of any other statement is one locked rewrite of the entry (Lock, Query,
 * Replace), which carries the CPU and SHARE changes too; without one those are keyword updates, which
 * need no lock.
 */
function directorySteps(edit: DirectoryEdit): Step[] {
  const { cpus, share } = edit;
  if (edit.memory || edit.maxMemory || edit.statements) return [{ op: 'rewriteDirectory', ...edit }];
  return [...(cpus !== undefined ? [{ op: 'setDirectoryCpus', count: cpus } as const] : []), ...(share ? [{ op: 'setDirectoryShare', share } as const] : [])];
}

/**
 * Disks that left the spec. Of a guest we created every minidisk is ours; of an adopted guest only
 * those status recorded as created by us. z/VM detaches minidisks only from a logged-off guest here.
 */
function planDiskRemovals(
  guest: ZGuest,
  observed: GuestState | undefined,
  ownership: Ownership,
  disks: ResolvedDisk[],
  power: PowerState,
  steps: Step[],
  problems: Problem[],
): void {
  if (!observed) return;
  const wanted = new Set(disks.map((d) => d.vdev));
  const recorded = new Set((guest.status?.disks ?? []).map((d) => normalizeVdev(d.vdev)));
  const extra = observed.directory.disks
    .map((d) => normalizeVdev(d.vdev))
    .filter((v) => !wanted.has(v) && (ownership === 'owned' || recorded.has(v)));
  if (extra.length === 0) return;
  if (power !== 'off') {
    problems.push({
      reason: 'DiskRemovalRequiresStop',
      severity: 'blocked',
      message: `disk ${extra.join(', ')} removed from spec is detached only while the guest is off`,
    });
    return;
  }
  for (const vdev of extra) steps.push({ op: 'removeDisk', vdev });
}

export function planPowerUp(power: PowerState, desired: PowerState): Step[] {
  if (desired === 'on') return power === 'off' ? [{ op: 'start' }] : power === 'paused' ? [{ op: 'unpause' }] : [];
  if (desired === 'paused') return power === 'off' ? [{ op: 'start' }, { op: 'pause' }] : power === 'on' ? [{ op: 'pause' }] : [];
  return [];
}
