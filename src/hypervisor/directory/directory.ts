/**
 * The z/VM user directory entry, shared by the simulator and the SMAPI adapter
 * (docs/smapi.md §5): parse Image_Query_DM records into a GuestDirectory, render a
 * GuestDefinition into the statements feilong's guest_create writes (renderDirectory).
 */
import { InvalidInputError } from '../../errors.js';
import type { DirectoryDisk, GuestDirectory } from '../port.js';
import {
  commandDefineCpuAddress,
  isComment,
  normalizeCpuAddress,
  normalizeStatements,
  normalizeVdev,
  parseNicdefs,
  tokensOf,
} from './statements.js';

export * from './statements.js';
export * from './units.js';
export { renderDirectory } from './render.js';

/** `MDISK vdev devtype (start size volser | V-DISK n | T-DISK n | DEVNO rdev) [mode …]`. */
export function parseMdisk(tokens: readonly string[]): DirectoryDisk | undefined {
  const vdev = normalizeVdev(tokens[1] ?? '');
  if (tokens[0] !== 'MDISK' || !vdev || tokens.length < 4) return undefined;
  const deviceType = tokens[2];
  const kind = tokens[3];
  if (kind === 'V-DISK' || kind === 'T-DISK') {
    return { vdev, deviceType, start: 0, size: Number(tokens[4] ?? 0), volser: kind, mode: tokens[5] ?? 'W' };
  }
  if (kind === 'DEVNO') {
    return { vdev, deviceType, start: 0, size: 0, volser: `DEVNO ${tokens[4] ?? ''}`.trim(), mode: tokens[5] ?? 'W' };
  }
  if (tokens.length < 6) return undefined;
  return {
    vdev,
    deviceType,
    start: Number(tokens[3]),
    size: Number(tokens[4]),
    volser: tokens[5],
    mode: tokens[6] ?? 'W',
  };
}

interface Accumulator {
  userid?: string;
  memory: string;
  maxMemory: string;
  machineMax?: number;
  cpus: Set<string>;
  profile?: string;
  ipl?: string;
  disks: DirectoryDisk[];
  dedicates: { vdev: string; rdev: string }[];
  share?: string;
}

function applyStatement(acc: Accumulator, tokens: string[]): void {
  switch (tokens[0]) {
    case 'USER':
    case 'IDENTITY':
      acc.userid = tokens[1];
      acc.memory = tokens[3] ?? acc.memory;
      acc.maxMemory = tokens[4] ?? tokens[3] ?? acc.maxMemory;
      break;
    case 'INCLUDE':
      acc.profile = tokens[1];
      break;
    case 'MACHINE':
      if (tokens[2] && /^\d+$/.test(tokens[2])) acc.machineMax = Number(tokens[2]);
      break;
    case 'CPU': {
      const addr = normalizeCpuAddress(tokens[1] ?? '');
      if (addr) acc.cpus.add(addr);
      break;
    }
    case 'COMMAND': {
      const addr = commandDefineCpuAddress(tokens);
      if (addr) acc.cpus.add(addr);
      break;
    }
    case 'IPL':
      acc.ipl = tokens[1];
      break;
    case 'MDISK': {
      const disk = parseMdisk(tokens);
      if (disk) acc.disks.push(disk);
      break;
    }
    case 'SHARE':
      acc.share = tokens.slice(1).join(' ').toUpperCase();
      break;
    case 'DEDICATE': {
      const vdev = normalizeVdev(tokens[1] ?? '');
      if (vdev && tokens[2]) acc.dedicates.push({ vdev, rdev: tokens[2] });
      break;
    }
    default:
      // ACCOUNT, LOGONBY, LOADDEV, CONSOLE, SPOOL, LINK …: kept in `lines` only
      break;
  }
}

/**
 * Parses directory records (72-column card images, possibly blank padded, any case) into a
 * GuestDirectory. Comments are kept in `lines` but not interpreted. Throws InvalidInputError
 * when there is no USER (or IDENTITY) statement.
 */
export function parseDirectory(records: readonly string[]): GuestDirectory {
  const lines = normalizeStatements(records);
  const acc: Accumulator = { memory: '', maxMemory: '', cpus: new Set(), disks: [], dedicates: [] };
  for (const line of lines) {
    if (!isComment(line)) applyStatement(acc, tokensOf(line));
  }
  if (!acc.userid) throw new InvalidInputError('directory entry has no USER statement');
  const nics = [...parseNicdefs(lines).values()].map((n) => ({
    vdev: n.vdev,
    ...(n.vswitch !== undefined ? { vswitch: n.vswitch } : {}),
    ...(n.macId !== undefined ? { macId: n.macId } : {}),
    ...(n.vlan !== undefined ? { vlan: n.vlan } : {}),
  }));
  return {
    userid: acc.userid,
    lines,
    memory: acc.memory,
    maxMemory: acc.maxMemory,
    maxCpus: acc.machineMax ?? Math.max(1, acc.cpus.size),
    cpus: acc.cpus.size,
    ...(acc.profile !== undefined ? { profile: acc.profile } : {}),
    ...(acc.ipl !== undefined ? { ipl: acc.ipl } : {}),
    disks: acc.disks,
    nics,
    dedicates: acc.dedicates,
    ...(acc.share !== undefined ? { share: acc.share } : {}),
  };
}
