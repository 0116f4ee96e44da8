import { memoryToMB } from '../../api/index.js';
import { type DirectoryDisk, type GuestState, parseDirectory, renderDirectory, rewriteEntry } from '../../hypervisor/index.js';
import { normalizeVdev } from './definition.js';
import type { Step } from './steps.js';

/** A step whose effect on the host state we do not model: the caller reads the host instead. */
export const UNPROJECTABLE = Symbol('unprojectable');

/**
 * Pure: the host state after `applied` succeeded on `before`, as the next read would show it in
 * the fields the planner and status use (power, active CPUs/storage, directory CPUs, storage,
 * disks and NICs). Sparing that read is most of the saving of figure 1 (bench/): a start is one
 * call instead of four. Steps this does not know (added later by other capabilities) answer
 * UNPROJECTABLE, so the reconciler falls back to describing the guest.
 */
export function projectGuestState(before: GuestState | undefined, applied: readonly Step[]): GuestState | undefined | typeof UNPROJECTABLE {
  let state: GuestState | undefined = before ? clone(before) : undefined;
  for (const step of applied) {
    if (step.op === 'addFinalizer' || step.op === 'removeFinalizer' || step.op === 'ackToken') continue;
    if (step.op === 'createGuest') {
      state = { userid: step.definition.userid.toUpperCase(), power: 'off', directory: parseDirectory(renderDirectory(step.definition)) };
      continue;
    }
    if (step.op === 'deleteGuest') {
      state = undefined;
      continue;
    }
    if (!state || !applyStep(state, step)) return UNPROJECTABLE;
  }
  return state;
}

/** Mutates `s` (a private copy) for one step; false when the step is not modelled. */
function applyStep(s: GuestState, step: Step): boolean {
  const dir = s.directory;
  switch (step.op) {
    case 'start':
      // a logon copies the directory's CPUs and storage into the active configuration
      s.power = 'on';
      s.active = { cpus: dir.cpus, memoryMB: memoryToMB(dir.memory) ?? 0 };
      return true;
    case 'deployImage':
      // the image goes onto a minidisk's contents: the directory and the power stay as they were
      return true;
    case 'stop':
      s.power = 'off';
      delete s.active;
      return true;
    case 'pause':
      s.power = 'paused';
      return true;
    case 'unpause':
      s.power = 'on';
      return true;
    case 'setDirectoryCpus':
      dir.cpus = step.count;
      return true;
    case 'setDirectoryShare':
      dir.share = step.share;
      return true;
    case 'defineActiveCpus':
      if (s.active) s.active.cpus = Math.max(s.active.cpus, step.count);
      return true;
    case 'rewriteDirectory': {
      // the entry's text is rewritten as the host will; disks and NICs keep what earlier steps projected
      const { op: _op, ...change } = step;
      s.directory = { ...parseDirectory(rewriteEntry(dir.lines, change)), disks: dir.disks, nics: dir.nics };
      return true;
    }
    case 'addDisk':
      dir.disks.push(projectedDisk(step.disk.vdev, step.disk.pool));
      return true;
    case 'removeDisk':
      dir.disks = dir.disks.filter((d) => normalizeVdev(d.vdev) !== normalizeVdev(step.vdev));
      return true;
    case 'createNic':
      dir.nics.push({ vdev: normalizeVdev(step.vdev), ...(step.macId ? { macId: step.macId } : {}) });
      return true;
    case 'deleteNic':
      dir.nics = dir.nics.filter((n) => normalizeVdev(n.vdev) !== normalizeVdev(step.vdev));
      return true;
    case 'coupleNic':
      return updateNic(s, step.vdev, step.vswitch.toUpperCase());
    case 'uncoupleNic':
      return updateNic(s, step.vdev, undefined);
    default:
      return false;
  }
}

function updateNic(s: GuestState, vdev: string, vswitch: string | undefined): boolean {
  const nic = s.directory.nics.find((n) => normalizeVdev(n.vdev) === normalizeVdev(vdev));
  if (!nic) return false;
  if (vswitch) nic.vswitch = vswitch;
  else delete nic.vswitch;
  delete nic.vlan;
  return true;
}

/** Where the extent lies is the directory manager's choice; only the device number is known here. */
function projectedDisk(vdev: string, pool: string): DirectoryDisk {
  return { vdev: normalizeVdev(vdev), deviceType: /^FBA:/i.test(pool) ? 'FB-512' : '3390', start: 0, size: 0, volser: '', mode: 'MR' };
}

function clone(s: GuestState): GuestState {
  return structuredClone(s);
}
