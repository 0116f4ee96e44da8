import type { CallOptions } from './port.js';

/** What one batched set of host queries tells (docs/rest-interface.md §3.12, §5.6). */
export interface HostSummary {
  /** the userid the host queries run as (feilong: its own virtual machine) */
  zccUserid: string;
  /** z/VM system (LPAR) name */
  systemName: string;
  /** CP level, e.g. '7.1.0' */
  version: string;
  /** digits of the CP level: 7.1.0 → 710 */
  hypervisorVersion: number;
  /** processors of type CP or IFL */
  vcpus: number;
  /** processors that are the master, an alternate or parked */
  vcpusUsed: number;
  cecModel: string;
  memoryMB: number;
  memoryMBUsed: number;
  /** 'IPL at MM/DD/YY HH:MM:SS TZ' */
  iplTime: string;
}

/** A free extent of a disk pool (GET /host/diskpool?details=true). */
export interface DiskPoolRegion {
  volume_name: string;
  device_type: string;
  start_cylinder: string;
  /** GiB, rounded */
  free_size: number;
  dasd_group: string;
  region_name: string;
}

/** A DASD volume of the directory manager (GET /host/volume). */
export interface HostVolume {
  volume_name: string;
  volume_type: string;
  volume_size: string;
}

/** Host-wide live reads: each method is one small batch of SMAPI queries, never one per guest. */
export interface HostQueries {
  describe(opts?: CallOptions): Promise<HostSummary>;
  /** free extents of one pool ('ECKD:POOL1' or 'POOL1'); unknown pool → HypervisorError */
  diskPoolRegions(pool: string, opts?: CallOptions): Promise<DiskPoolRegion[]>;
  /** volume labels of one pool */
  diskPoolVolumes(pool: string, opts?: CallOptions): Promise<string[]>;
  /** every volume the directory manager knows */
  volumes(opts?: CallOptions): Promise<HostVolume[]>;
  /** SSI_Query as `key = value` lines; [] when the host is not an SSI member */
  ssi(opts?: CallOptions): Promise<string[]>;
}

/** Pool totals in whole GB, summed over the configured pools. */
export interface DiskTotals {
  disk_total: number;
  disk_used: number;
  disk_available: number;
}

/** GET /host's output (docs/rest-interface.md §5.6), in the reference's key order. */
export function toFeilongHostInfo(s: HostSummary, disk: DiskTotals) {
  return {
    zcc_userid: s.zccUserid,
    zvm_host: s.systemName,
    hypervisor_hostname: s.systemName,
    hypervisor_type: 'zvm',
    hypervisor_version: s.hypervisorVersion,
    vcpus: s.vcpus,
    vcpus_used: s.vcpusUsed,
    cpu_info: { architecture: 's390x', cec_model: s.cecModel },
    memory_mb: s.memoryMB,
    memory_mb_used: s.memoryMBUsed,
    ipl_time: s.iplTime,
    disk_total: disk.disk_total,
    disk_used: disk.disk_used,
    disk_available: disk.disk_available,
  };
}
