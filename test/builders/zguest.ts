import { API_VERSION, FINALIZER, type ObjectMeta, type ZGuestStatus } from '../../src/api/index.js';
import type { ResolvedGuestSpec, ResolvedZGuest } from '../../src/controllers/zguest/class.js';
import type { DirectoryDisk, GuestState, PowerState } from '../../src/hypervisor/port.js';
import { ownerComment } from '../../src/controllers/zguest/ownership.js';

export const GUEST_UID = 'uid-1';

export interface GuestMeta extends Partial<ObjectMeta> {
  status?: ZGuestStatus;
}

/** A ZGuest with the finalizer already on (the usual state once the controller has seen it). */
export function aGuest(spec: Partial<ResolvedGuestSpec> = {}, meta: GuestMeta = {}): ResolvedZGuest {
  const { status, ...metadata } = meta;
  const guest: ResolvedZGuest = {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: {
      name: 'g1',
      namespace: 'default',
      uid: GUEST_UID,
      generation: 1,
      resourceVersion: '1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      finalizers: [FINALIZER],
      ...metadata,
    },
    spec: { userid: 'LINUX01', vcpus: 2, memory: '2G', ...spec },
  };
  if (status) guest.status = status;
  return guest;
}

export interface ObservedOptions {
  userid?: string;
  power?: PowerState;
  cpus?: number;
  maxCpus?: number;
  memory?: string;
  maxMemory?: string;
  /** vdevs of the MDISKs in the directory */
  disks?: string[];
  /** uid in the owner comment; null for an entry without one */
  owner?: string | null;
  /** active configuration (defaults to the directory's when the guest is not off) */
  active?: { cpus: number; memoryMB: number };
  /** the IPL statement's device (a guest whose first disk boots has IPL <root vdev>) */
  ipl?: string;
}

function memoryMB(memory: string): number {
  const n = parseInt(memory, 10);
  return memory.toUpperCase().endsWith('G') ? n * 1024 : n;
}

export function aDirectoryDisk(vdev: string): DirectoryDisk {
  return { vdev, deviceType: '3390', start: 1, size: 1000, volser: 'VOL001', mode: 'MR' };
}

/** What describeGuest returns for a guest created by the controller (owner comment of GUEST_UID). */
export function anObservedGuest(opts: ObservedOptions = {}): GuestState {
  const userid = opts.userid ?? 'LINUX01';
  const power = opts.power ?? 'on';
  const cpus = opts.cpus ?? 2;
  const memory = opts.memory ?? '2G';
  const maxMemory = opts.maxMemory ?? '64G';
  const owner = opts.owner === undefined ? GUEST_UID : opts.owner;
  const disks = (opts.disks ?? []).map(aDirectoryDisk);
  const lines = [`USER ${userid} LBYONLY ${memory} ${maxMemory} G`, 'INCLUDE OSDFLT', `MACHINE ESA ${opts.maxCpus ?? 32}`];
  for (let i = 0; i < cpus; i++) lines.push(`COMMAND DEFINE CPU ${i.toString(16).toUpperCase().padStart(2, '0')} TYPE IFL`);
  if (opts.ipl) lines.push(`IPL ${opts.ipl}`);
  for (const d of disks) lines.push(`MDISK ${d.vdev} ${d.deviceType} ${d.start} ${d.size} ${d.volser} ${d.mode}`);
  if (owner !== null) lines.push(`* ${ownerComment(owner).toUpperCase()}`);
  const state: GuestState = {
    userid,
    power,
    directory: { userid, lines, memory, maxMemory, maxCpus: opts.maxCpus ?? 32, cpus, profile: 'OSDFLT', ...(opts.ipl ? { ipl: opts.ipl } : {}), disks, nics: [], dedicates: [] },
  };
  if (power !== 'off') state.active = opts.active ?? { cpus, memoryMB: memoryMB(memory) };
  return state;
}
