/** Configuration of the simulated z/VM host. */
import type { SimFcpConfig } from './fcp-inventory.js';

export type SimPoolType = 'ECKD' | 'FBA';

export interface SimVolumeConfig {
  volser: string;
  /** ECKD (3390) volumes: size in cylinders. */
  cylinders?: number;
  /** FBA volumes: size in 512-byte blocks. */
  blocks?: number;
  /** Real device number (4 hex digits) reported by Image_Disk_Query; derived when absent. */
  rdev?: string;
}

export interface SimPoolConfig {
  /** DirMaint group name, e.g. POOL1 (used as `ECKD:POOL1` by feilong). */
  name: string;
  type: SimPoolType;
  volumes: SimVolumeConfig[];
}

export interface SimConfig {
  systemName: string;
  /** CP level, e.g. '7.1.0'; Query_API_Functional_Level answers 710 for it. */
  version: string;
  pools: SimPoolConfig[];
  /** Profiles that INCLUDE may name (436/4 otherwise). */
  profiles: string[];
  /** JSON file holding the whole state; in memory when absent. */
  statePath?: string;
  /** Delay applied inside every handle() call (default 0). */
  latencyMs?: number;
  /**
   * A logoff without IMMED stays pending during this many subsequent handled calls (default 3)
   * and is complete for the one after, so the window is deterministic without clocks.
   */
  logoffPendingCalls?: number;
  /** rs of Image_Deactivate without force time: the system SIGNAL SHUTDOWNTIME in seconds. */
  shutdownTimeSeconds?: number;
  /** Largest accepted `WITHIN n` (200/36 beyond it). */
  maxShutdownSeconds?: number;
  /** Host resources reported by System_Information_Query. */
  host?: { cpus?: number; memoryGB?: number; iplDate?: string; iplTime?: string; cpuId?: string };
  /** Lines kept per guest console spool (oldest dropped first). */
  consoleMaxLines?: number;
  /**
   * System names of the SSI cluster this host belongs to, itself included (VMRELOCATE destinations);
   * empty: not an SSI member. Default: this system and ZVMSIM2.
   */
  ssiMembers?: string[];
  /** FCP devices of the host (System_WWPN_Query); default fcp-inventory.ts DEFAULT_FCPS. */
  fcps?: SimFcpConfig[];
  /**
   * The management guest's userid, whose reader receives the console files Image_Console_Get
   * closes (on z/VM: the caller's reader; feilong's caller is its own guest). Default OPNCLOUD.
   */
  mgmtUserid?: string;
}

/** 3390 model 54 (EAV) volumes: 262,668 cylinders, about 180 GiB each. */
const EAV_CYLINDERS = 262_668;
/** FBA volumes of 200 GiB. */
const FBA_BLOCKS = 419_430_400;

function volumes(prefix: string, count: number, size: { cylinders?: number; blocks?: number }): SimVolumeConfig[] {
  return Array.from({ length: count }, (_, i) => ({ volser: `${prefix}${String(i + 1).padStart(3, '0')}`, ...size }));
}

/**
 * Defaults sized for benchmarks: POOL1 (ECKD) holds about 28 TiB in 160 volumes — 10 000 guests
 * with two 1G disks each fit with room to spare — and POOL2 (FBA) about 12.5 TiB in 64 volumes.
 */
export function defaultSimConfig(): SimConfig {
  return {
    systemName: 'ZVMSIM',
    version: '7.1.0',
    pools: [
      { name: 'POOL1', type: 'ECKD', volumes: volumes('SIM', 160, { cylinders: EAV_CYLINDERS }) },
      { name: 'POOL2', type: 'FBA', volumes: volumes('SFB', 64, { blocks: FBA_BLOCKS }) },
    ],
    profiles: ['OSDFLT', 'LNXDFLT'],
  };
}

export interface ResolvedSimConfig extends SimConfig {
  latencyMs: number;
  logoffPendingCalls: number;
  shutdownTimeSeconds: number;
  maxShutdownSeconds: number;
  consoleMaxLines: number;
  ssiMembers: string[];
  mgmtUserid: string;
  host: { cpus: number; memoryGB: number; iplDate: string; iplTime: string; cpuId: string };
}

/** Fills every optional setting; a partial config overrides the defaults field by field. */
export function resolveSimConfig(partial: Partial<SimConfig> = {}): ResolvedSimConfig {
  const base = defaultSimConfig();
  const c = { ...base, ...partial };
  return {
    ...c,
    systemName: c.systemName.toUpperCase(),
    profiles: c.profiles.map((p) => p.toUpperCase()),
    latencyMs: c.latencyMs ?? 0,
    logoffPendingCalls: c.logoffPendingCalls ?? 3,
    shutdownTimeSeconds: c.shutdownTimeSeconds ?? 30,
    maxShutdownSeconds: c.maxShutdownSeconds ?? 65_535,
    consoleMaxLines: c.consoleMaxLines ?? 500,
    mgmtUserid: (c.mgmtUserid ?? 'OPNCLOUD').trim().toUpperCase(),
    ssiMembers: (c.ssiMembers ?? [c.systemName, 'ZVMSIM2']).map((m) => m.toUpperCase()),
    host: {
      cpus: c.host?.cpus ?? 16,
      memoryGB: c.host?.memoryGB ?? 1024,
      iplDate: c.host?.iplDate ?? '2026-01-01',
      iplTime: c.host?.iplTime ?? '00:00:00',
      cpuId: c.host?.cpuId ?? 'FF00000039060000',
    },
  };
}
