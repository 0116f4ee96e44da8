/**
 * The simulated host's whole state. Everything is keyed by upper-case userid, volser or switch
 * name so that a call touches O(1) entries; persistence.ts turns it into JSON and back.
 */
import type { SimPoolType } from './config.js';

/** A directory entry: normalized upper-case statements, single blanks, USER first. */
export interface DirEntry {
  userid: string;
  statements: string[];
}

export interface Extent {
  start: number;
  size: number;
  owner: string;
  vdev: string;
}

export interface Volume {
  volser: string;
  pool: string;
  type: SimPoolType;
  /** cylinders (ECKD) or 512-byte blocks (FBA) */
  size: number;
  rdev: string;
  /** allocated extents, sorted by start */
  extents: Extent[];
}

export interface Pool {
  name: string;
  type: SimPoolType;
  volumes: Volume[];
}

/** A disk in a running guest's configuration. */
export interface ActiveDisk {
  vdev: string;
  deviceType: string;
  volser: string;
  start: number;
  size: number;
  mode: string;
  rdev: string;
}

/** A NIC in a running guest's configuration. */
export interface ActiveNic {
  vdev: string;
  devices: number;
  type: string;
  vswitch?: string;
  /** 12 hex digits */
  mac: string;
}

/** A logged-on guest: its active configuration, which directory changes do not alter. */
export interface Running {
  userid: string;
  paused: boolean;
  /** set while a logoff (Image_Deactivate without IMMED) is pending: the call seq it ends at */
  logoffAtSeq?: number;
  cpus: string[];
  maxCpus: number;
  memoryMB: number;
  share: number;
  disks: Map<string, ActiveDisk>;
  nics: Map<string, ActiveNic>;
  dedicates: Map<string, string>;
  logonSeq: number;
  /** CPU time accumulated up to `accountedSeq` (virtual microseconds) */
  cpuUsedUs: number;
  accountedSeq: number;
}

export interface VswitchGrant {
  userid: string;
  vlans: number[];
}

export interface Vswitch {
  name: string;
  transportType: string;
  portType: string;
  queueMemoryLimit: string;
  routingValue: string;
  vlanAware: boolean;
  vlanId: number;
  nativeVlanId: number;
  /** 12 hex digits */
  mac: string;
  realDevices: string[];
  controllerName: string;
  portName: string;
  switchType: string;
  ipTimeout: string;
  portSelection: string;
  grants: Map<string, VswitchGrant>;
  /** CONNECT, DISCONNECT or NOUPLINK (absent in state written before it was modelled: CONNECT) */
  connection?: string;
  /** GVRP or NOGVRP, VLAN-aware switches only */
  gvrp?: string;
  /** false when created with persist=NO (not in SYSTEM CONFIG) */
  persist?: boolean;
}

/**
 * A closed spool file in a virtual reader: a console (Image_Console_Get closes a guest's console, device
 * CON, class T, and transfers it to the management guest's reader) or a file punched to a guest's reader
 * (`vmur punch -r -u <userid> -N <name>.<type>`: device PUN, class A, the bytes kept exactly).
 */
export interface ReaderFile {
  /** 1..9999 */
  spoolId: number;
  /** the userid whose console it was, or who punched it (ORIGINID) */
  origin: string;
  /** the device that made it: CON (console) or PUN (punch) */
  type: 'CON' | 'PUN';
  cls: string;
  /** console text; empty for a punched file */
  lines: string[];
  /** a punched file's spool file name and type (the NAME and TYPE columns of `vmur list`) */
  name?: string;
  fileType?: string;
  /** a punched file's bytes, base64 (CP pads the last 80-byte record; readers such as Ignition strip the padding) */
  data?: string;
}

export interface SimState {
  /** virtual clock: number of handled calls */
  seq: number;
  /** next MAC suffix handed out by the host (deterministic) */
  nextMac: number;
  entries: Map<string, DirEntry>;
  /** 'USERID' (whole entry) or 'USERID/VDEV' (one device) */
  locks: Set<string>;
  pools: Map<string, Pool>;
  volumes: Map<string, Volume>;
  running: Map<string, Running>;
  vswitches: Map<string, Vswitch>;
  consoles: Map<string, string[]>;
  /** per console: how many of its last lines were spooled since the last CLOSE (Image_Console_Get) */
  consoleUnclosed: Map<string, number>;
  /** virtual readers by owner userid, oldest file first */
  readers: Map<string, ReaderFile[]>;
  /** next spool id handed out by a CLOSE (1..9999, wrapping) */
  nextSpoolId: number;
  profiles: Set<string>;
}

export function emptyState(): SimState {
  return {
    seq: 0,
    nextMac: 1,
    entries: new Map(),
    locks: new Set(),
    pools: new Map(),
    volumes: new Map(),
    running: new Map(),
    vswitches: new Map(),
    consoles: new Map(),
    consoleUnclosed: new Map(),
    readers: new Map(),
    nextSpoolId: 1,
    profiles: new Set(),
  };
}

/** The MAC prefix of this host (z/VM's default VMLAN MACPREFIX 02-00-01). */
export const MAC_PREFIX = '020001';

/** Hands out the next host-assigned MAC id (6 hex digits). */
export function nextMacId(state: SimState): string {
  const id = state.nextMac.toString(16).toUpperCase().padStart(6, '0');
  state.nextMac = (state.nextMac + 1) % 0x1000000;
  return id;
}

/** '020001000005' → '02-00-01-00-00-05' */
export function dashedMac(mac: string): string {
  return mac.match(/../g)?.join('-') ?? mac;
}
