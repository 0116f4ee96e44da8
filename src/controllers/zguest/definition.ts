import { memoryToMB, type DiskFormat, type GuestDisk, type ZGuest } from '../../api/index.js';
import type { DiskRequest, GuestDefinition } from '../../hypervisor/index.js';
import type { ResolvedZGuest } from './class.js';
import { markOf, ownerComment } from './ownership.js';

/** Host-level defaults (ZHost spec.defaults, docs/rest-interface.md §3.0). */
export interface GuestDefaults {
  diskPool: string;
  rootVdev: string;
  maxCpus: number;
  maxMemory: string;
  profile: string;
}

export const DEFAULT_GUEST_DEFAULTS: GuestDefaults = {
  diskPool: 'ECKD:POOL1',
  rootVdev: '0100',
  maxCpus: 32,
  maxMemory: '64G',
  profile: 'OSDFLT',
};

/** A spec disk with every default resolved: what addDisk receives and what status reports. */
export interface ResolvedDisk extends DiskRequest {
  /** the size string exactly as the spec gave it */
  size: string;
  format: DiskFormat;
  boot: boolean;
}

/** Device numbers compare as 4 upper-case hex digits ('100' and '0100' are one device). */
export function normalizeVdev(vdev: string): string {
  return vdev.toUpperCase().padStart(4, '0');
}

export function vdevAt(rootVdev: string, offset: number): string {
  return normalizeVdev((parseInt(rootVdev, 16) + offset).toString(16));
}

export function sameMemory(a: string, b: string): boolean {
  const ma = memoryToMB(a);
  return ma !== undefined ? ma === memoryToMB(b) : a.toUpperCase() === b.toUpperCase();
}

export function desiredUserid(guest: ZGuest): string {
  return guest.spec.userid.toUpperCase();
}

/**
 * Spec disks with vdev, pool and format resolved the feilong way (§3.1): vdev = given or root vdev +
 * index; the first boot disk is never formatted (it receives an image); others default to ext4.
 */
export function resolveDisks(guest: ZGuest, defaults: GuestDefaults): ResolvedDisk[] {
  const disks: GuestDisk[] = guest.spec.disks ?? [];
  const bootIndex = disks.findIndex((d) => d.boot === true);
  return disks.map((d, i): ResolvedDisk => ({
    vdev: normalizeVdev(d.vdev ?? vdevAt(defaults.rootVdev, i)),
    pool: d.pool ?? defaults.diskPool,
    size: d.size,
    format: i === bootIndex ? 'none' : ((d.format as DiskFormat | undefined) ?? 'ext4'),
    boot: i === bootIndex,
  }));
}

/** Vdevs that two spec disks resolve to; such a spec cannot be realised. */
export function duplicateVdevs(disks: ResolvedDisk[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const d of disks) (seen.has(d.vdev) ? dup : seen).add(d.vdev);
  return [...dup];
}

export function toDiskRequest(disk: ResolvedDisk): DiskRequest {
  return { vdev: disk.vdev, pool: disk.pool, size: disk.size, format: disk.format };
}

/** The directory entry to create, carrying the owner comment that proves who created it. */
export function buildDefinition(guest: ResolvedZGuest, defaults: GuestDefaults): GuestDefinition {
  const { spec } = guest;
  const firstDiskBoots = spec.disks?.[0]?.boot === true;
  const def: GuestDefinition = {
    userid: desiredUserid(guest),
    vcpus: spec.vcpus,
    maxCpus: spec.maxCpus ?? defaults.maxCpus,
    memory: spec.memory,
    maxMemory: spec.maxMemory ?? defaults.maxMemory,
    profile: spec.profile ?? defaults.profile,
    comments: [...(spec.comments ?? []), ownerComment(markOf(guest))],
  };
  if (spec.account) def.account = spec.account;
  if (firstDiskBoots || spec.ipl) {
    def.ipl = { device: spec.ipl?.device ?? defaults.rootVdev };
    if (spec.ipl?.param) def.ipl.param = spec.ipl.param;
    if (spec.ipl?.loadparm) def.ipl.loadparm = spec.ipl.loadparm;
  }
  if (spec.loaddev) def.loaddev = { ...spec.loaddev };
  if (spec.dedicate?.length) def.dedicate = [...spec.dedicate];
  if (spec.cpuPool) def.cpuPool = spec.cpuPool;
  if (spec.share) def.share = spec.share;
  if (spec.relocationDomain) def.relocationDomain = spec.relocationDomain;
  if (spec.pciFunctions?.length) def.pciFunctions = [...spec.pciFunctions];
  return def;
}
