import type { DiskFormat } from '../api/index.js';
import type { FcpOps } from './fcp-port.js';
import type { HostQueries } from './host-port.js';
import type { VswitchOps } from './vswitch-port.js';
import type { MgmtOps } from './image-port.js';
import type { RelocationOps } from './relocation-port.js';
import type { DryRun } from './zvm/dry-run.js';
import type { StatementFamily } from './directory/families.js';

/** What CP reports; a paused guest is logged on with its virtual CPUs stopped. */
export type PowerState = 'on' | 'off' | 'paused';

/** A minidisk as the user directory records it (MDISK statement). */
export interface DirectoryDisk {
  vdev: string;
  /** 3390 (ECKD, size in cylinders) or FB-512 (FBA, size in 512-byte blocks). */
  deviceType: string;
  start: number;
  size: number;
  volser: string;
  mode: string;
}

export interface DirectoryNic {
  vdev: string;
  vswitch?: string;
  macId?: string;
  vlan?: number;
}

/** A user directory entry, parsed (docs/smapi.md §5). `lines` are the raw statements. */
export interface GuestDirectory {
  userid: string;
  lines: string[];
  /** USER statement storage fields, e.g. '2G' and '64G'. */
  memory: string;
  maxMemory: string;
  /** MACHINE ESA maximum; max(1, defined CPUs) when the statement has none. */
  maxCpus: number;
  /** CPUs defined in the directory (COMMAND DEFINE CPU or CPU statements). */
  cpus: number;
  profile?: string;
  ipl?: string;
  disks: DirectoryDisk[];
  nics: DirectoryNic[];
  dedicates: { vdev: string; rdev: string }[];
  /** the SHARE statement's value, e.g. 'RELATIVE 200' (single blanks, upper case) */
  share?: string;
}

/** Active (running) configuration; present only when the guest is logged on. */
export interface ActiveConfig {
  cpus: number;
  memoryMB: number;
}

/** What one locked rewrite of a directory entry changes (Hypervisor.rewriteDirectory); what it leaves out stays. */
export interface DirectoryRewrite {
  /** USER statement storage, e.g. '4G' */
  memory?: string;
  /** USER statement maximum storage, e.g. '8G' */
  maxMemory?: string;
  cpus?: number;
  /** a SHARE statement value, e.g. 'RELATIVE 400'; without it a CPU change writes the default share */
  share?: string;
  /** whole statement families replaced (directory/families.ts), e.g. { account: ['ACCOUNT ACCT2'] } */
  statements?: Partial<Record<StatementFamily, string[]>>;
}

export interface GuestState {
  userid: string;
  power: PowerState;
  directory: GuestDirectory;
  active?: ActiveConfig;
}

/** What the controller asks to be defined (docs/rest-interface.md §3.1, statement order there). */
export interface GuestDefinition {
  userid: string;
  vcpus: number;
  maxCpus: number;
  /** e.g. '2G' or '1000M' */
  memory: string;
  maxMemory: string;
  profile?: string;
  account?: string;
  comments?: string[];
  ipl?: { device: string; param?: string; loadparm?: string };
  loaddev?: { portname?: string; lun?: string; alterdev?: string };
  dedicate?: string[];
  /** COMMAND SCHEDULE * WITHIN POOL <cpuPool> */
  cpuPool?: string;
  /** SHARE <share>; default RELATIVE 100 per virtual CPU */
  share?: string;
  /** COMMAND SET VMRELOCATE * DOMAIN <relocationDomain> */
  relocationDomain?: string;
  /** 'fid:vdev' pairs, each COMMAND ATTACH PCIF <fid> * AS <vdev> */
  pciFunctions?: string[];
}

export interface DiskRequest {
  vdev: string;
  /** 'ECKD:POOL1' or 'FBA:POOL2' */
  pool: string;
  /** '10G', '512M' or a bare cylinder/block count */
  size: string;
  format?: DiskFormat;
}

export interface PerformanceRecord {
  userid: string;
  usedCpuTimeUs: number;
  elapsedTimeUs: number;
  minMemKb: number;
  maxMemKb: number;
  sharedMemKb: number;
  usedMemKb: number;
  guestCpus: number;
  minCpuCount: number;
  maxCpuLimit: number;
  samplesCpuInUse: number;
  samplesCpuDelay: number;
}

export interface HostInfo {
  hostname: string;
  version: string;
  cpus: number;
  cpusUsed: number;
  memoryMB: number;
  memoryMBUsed: number;
  iplTime: string;
  cecModel: string;
}

export interface DiskPoolInfo {
  pool: string;
  totalBytes: number;
  usedBytes: number;
  freeBytes: number;
}

/** Real counters of the hypervisor client (GET /smapi_health). */
export interface HypervisorHealth {
  totalSuccess: number;
  totalFail: number;
  lastSuccess: string;
  lastFail: string;
  continuousFail: number;
  healthy: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** Where a host is reached: the ZHost SIMULATED and ENDPOINT columns. */
export interface HostConnection {
  /** the built-in simulator serves it (in this process, or as a child process this one started) */
  simulated: boolean;
  /** smapi://host:port, smapi+tls://host:port, or "built-in simulator" when in-process */
  endpoint: string;
}

/**
 * What a controller may ask of one z/VM host (docs/architecture.md §2). Adapters turn wire results into
 * typed errors (HypervisorError with rc/rs); "already in that state" answers are success, so every
 * mutation is idempotent. Reads are `describe*`/`query*`; mutations say what they change.
 */
export interface Hypervisor {
  readonly hostName: string;

  /** Directory entry plus power state; undefined when the userid is not in the directory. */
  describeGuest(userid: string, opts?: CallOptions): Promise<GuestState | undefined>;
  /** Every directory entry name (Image_Name_Query_DM). */
  listDirectory(opts?: CallOptions): Promise<string[]>;
  /** Power state of every logged-on guest in one batched query; absent = off. */
  queryActiveGuests(opts?: CallOptions): Promise<Map<string, PowerState>>;
  queryPowerState(userid: string, opts?: CallOptions): Promise<PowerState>;

  createGuest(def: GuestDefinition, opts?: CallOptions): Promise<void>;
  /** Logs the guest off if needed and deletes its entry and disks; absent guest is success. */
  deleteGuest(userid: string, opts?: CallOptions): Promise<void>;
  addDisk(userid: string, disk: DiskRequest, opts?: CallOptions): Promise<DirectoryDisk>;
  removeDisk(userid: string, vdev: string, opts?: CallOptions): Promise<void>;

  start(userid: string, opts?: CallOptions): Promise<void>;
  /** Immediate logoff (Image_Deactivate IMMED). */
  stop(userid: string, opts?: CallOptions): Promise<void>;
  /** Signal shutdown to the OS, then logoff. */
  softStop(userid: string, opts?: CallOptions): Promise<void>;
  pause(userid: string, opts?: CallOptions): Promise<void>;
  unpause(userid: string, opts?: CallOptions): Promise<void>;

  /** Directory CPU count (takes effect at next logon); must not exceed MACHINE ESA. */
  setDirectoryCpus(userid: string, count: number, opts?: CallOptions): Promise<void>;
  /** Rewrites the SHARE statement (e.g. 'RELATIVE 400'); takes effect at the next logon. */
  setDirectoryShare(userid: string, share: string, opts?: CallOptions): Promise<void>;
  /**
   * Adds CPUs to the running guest (CP DEFINE CPU) from `active` (the count it has, as observed) up
   * to `count`; only increases. A CPU already there is refused (216/24), never defined twice.
   */
  defineActiveCpus(userid: string, cpus: { active: number; count: number }, opts?: CallOptions): Promise<void>;
  /**
   * One locked rewrite of the entry (Lock, Query, Replace): storage (must not exceed the max storage),
   * max storage, whole statement families, and a CPU count and SHARE change when given (the statements
   * setDirectoryCpus and setDirectoryShare would write). Takes effect at the next logon.
   */
  rewriteDirectory(userid: string, change: DirectoryRewrite, opts?: CallOptions): Promise<void>;

  createNic(userid: string, nic: { vdev: string; macId?: string }, opts?: CallOptions): Promise<void>;
  deleteNic(userid: string, vdev: string, opts?: CallOptions): Promise<void>;
  coupleNic(userid: string, vdev: string, vswitch: string, opts?: CallOptions): Promise<void>;
  uncoupleNic(userid: string, vdev: string, opts?: CallOptions): Promise<void>;

  queryPerformance(userids: string[], opts?: CallOptions): Promise<PerformanceRecord[]>;
  getConsoleOutput(userid: string, opts?: CallOptions): Promise<string>;
  describeHost(opts?: CallOptions): Promise<HostInfo>;
  describeDiskPool(pool: string, opts?: CallOptions): Promise<DiskPoolInfo>;

  /** Virtual switches (absent on adapters that do not manage them). */
  readonly vswitches?: VswitchOps;
  /** Host-wide live reads (GET /host and friends, ZHost status). */
  readonly hostQueries?: HostQueries;

  /** FCP devices: inventory and dedicate (absent on adapters that do not manage them). */
  readonly fcp?: FcpOps;

  /** Live relocation within the host's SSI cluster (absent on adapters that cannot relocate). */
  readonly relocation?: RelocationOps;

  health(): HypervisorHealth;
  close(): Promise<void>;

  /** What this connection really reaches, when it is not what the ZHost spec says (standalone's default host). */
  readonly connection?: HostConnection;

  /** The management guest (vmcp, image repository); absent when the host has none configured. */
  readonly mgmt?: MgmtOps;

  /** A twin that reads the live host and records its writes instead of sending them (change plans). */
  dryRun?(): DryRun;
}
