import type { DiskPoolRegion, HostQueries, HostSummary, HostVolume } from '../host-port.js';
import type { CallOptions, DiskPoolInfo, HostInfo } from '../port.js';
import type { SmapiCall } from './call.js';
import type { LiveFacts } from './live-facts.js';

/** 3390 cylinder and FBA block sizes in bytes (docs/rest-interface.md §3.12). */
const CYLINDER_BYTES = 737280;
const BLOCK_BYTES = 512;
const PAGE_BYTES = 4096;
const MB = 1024 * 1024;
const GB = 1024 * MB;

/** `KEY=SUB=value SUB2=value` items (System_Information_Query), as a map of maps. */
function parseItems(lines: readonly string[]): Map<string, Map<string, string>> {
  const items = new Map<string, Map<string, string>>();
  for (const line of lines) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const fields = new Map<string, string>();
    for (const m of line.slice(eq + 1).matchAll(/([A-Z_]+)=("[^"]*"|\S*)/g)) fields.set(m[1], m[2]);
    items.set(line.slice(0, eq), fields);
  }
  return items;
}

/** `KEY=value` items (System_Performance_Information_Query): the first `=` splits. */
function parseFlat(lines: readonly string[]): Map<string, string> {
  return new Map(lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]));
}

function toMB(size: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(size ?? '');
  if (!m) return 0;
  const scale: Record<string, number> = { '': 1 / MB, K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 };
  return Number(m[1]) * scale[m[2].toUpperCase()];
}

/** '2019-04-28' '13:39:31' 'EDT' → 'IPL at 04/28/19 13:39:31 EDT' (feilong's form). */
function iplTimeOf(cp: Map<string, string> | undefined): string {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(cp?.get('IPL_DATE') ?? '');
  if (!cp || !date) return '';
  return `IPL at ${date[2]}/${date[3]}/${date[1].slice(2)} ${cp.get('IPL_TIME') ?? ''} ${cp.get('IPL_TIME_ZONE') ?? ''}`.trim();
}

/** Processor entries "ADDR STATUS TYPE CORE_ID": CP/IFL count, and those of them in use (master, alternate, parked). */
export function countProcessors(entries: readonly string[]): { total: number; used: number } {
  const rows = entries.map((e) => e.trim().split(/\s+/)).filter((r) => r[2] === 'CP' || r[2] === 'IFL');
  const used = rows.filter((r) => /MASTER/.test(r[1] ?? '') || r[1] === 'ALTERNATE' || r[1] === 'PARKED').length;
  return { total: rows.length, used };
}

export interface HostQueryReplies {
  information: readonly string[];
  processors: readonly string[];
  performance: readonly string[];
}

/**
 * The host summary from System_Information_Query (CP level, CPUID, storage, IPL time),
 * System_Processor_Query (CPU counts) and System_Performance_Information_Query (memory in use,
 * LPAR name). System_Information_Query alone has no CPU counts and no memory in use.
 */
export function parseHostSummary(zccUserid: string, fallbackName: string, r: HostQueryReplies): HostSummary {
  const items = parseItems(r.information);
  const perf = parseFlat(r.performance);
  const cp = items.get('CP_LEVEL');
  const version = cp?.get('VERSION') ?? '';
  const cpus = countProcessors(r.processors);
  const inUsePages = Number(perf.get('MEMORY_IN_USE') ?? 0);
  return {
    zccUserid,
    systemName: perf.get('MY_LPAR_NAME') || fallbackName.toUpperCase(),
    version,
    hypervisorVersion: Number(version.replace(/\D/g, '') || 0),
    vcpus: cpus.total,
    vcpusUsed: cpus.used,
    // CPUID is version(2) serial(6) machine type(4) format(4)
    cecModel: (items.get('CPUID')?.get('ID') ?? '').slice(8, 12),
    memoryMB: toMB(items.get('STORAGE')?.get('ONLINE')),
    memoryMBUsed: (inUsePages * PAGE_BYTES) / MB,
    iplTime: iplTimeOf(cp),
  };
}

/** The older HostInfo shape of the Hypervisor port, from the same summary. */
export function toHostInfo(s: HostSummary): HostInfo {
  return {
    hostname: s.systemName, version: s.version, cpus: s.vcpus, cpusUsed: s.vcpusUsed,
    memoryMB: s.memoryMB, memoryMBUsed: s.memoryMBUsed, iplTime: s.iplTime, cecModel: s.cecModel,
  };
}

/** @deprecated kept for callers of the first version; System_Information_Query alone lacks CPU and memory use. */
export function parseHostInfo(hostName: string, lines: string[]): HostInfo {
  return toHostInfo(parseHostSummary('', hostName, { information: lines, processors: [], performance: [] }));
}

const unitBytes = (devtype: string | undefined) => (devtype?.startsWith('3390') ? CYLINDER_BYTES : BLOCK_BYTES);

/** Extent size in bytes of one Image_Volume_Space_Query_DM record: `VOLID DEVTYPE START SIZE ...`. */
function extentBytes(record: string): number {
  const [, devtype, , size] = record.trim().split(/\s+/);
  return Number(size ?? 0) * unitBytes(devtype);
}

export function parsePoolSpace(pool: string, free: string[], used: string[]): DiskPoolInfo {
  const sum = (records: string[]) => records.reduce((total, r) => total + extentBytes(r), 0);
  const freeBytes = sum(free ?? []);
  const usedBytes = sum(used ?? []);
  return { pool, totalBytes: freeBytes + usedBytes, usedBytes, freeBytes };
}

/** q2 record `VOLID DEVTYPE START SIZE GROUP REGION` → a free region. */
export function parseRegion(record: string): DiskPoolRegion {
  const [volume_name = '', device_type = '', start = '', size = '0', group = '', region = ''] = record.trim().split(/\s+/);
  return {
    volume_name, device_type, start_cylinder: start, free_size: Math.round((Number(size) * unitBytes(device_type)) / GB),
    dasd_group: group, region_name: region || volume_name,
  };
}

const groupOf = (pool: string) => (pool.includes(':') ? pool.split(':')[1] : pool).toUpperCase();

/** HostQueries over SMAPI; `target` is the userid the queries run as. */
export function createSmapiHostQueries(smapi: SmapiCall, hostName: string, target = 'MAINT'): HostQueries {
  const records = async (queryType: number, entryType: number, names: string, opts?: CallOptions) =>
    (await smapi('Image_Volume_Space_Query_DM', target, { query_type: queryType, entry_type: entryType, entry_names: names }, [], opts)).output.record_array ?? [];
  return {
    async describe(opts) {
      const [information, processors, performance] = await Promise.all([
        smapi('System_Information_Query', target, {}, [], opts),
        smapi('System_Processor_Query', target, {}, [], opts),
        smapi('System_Performance_Information_Query', target, { system_performance_information_list: ['DETAILED_CPU=SHOW=NO'] }, [], opts),
      ]);
      return parseHostSummary(target, hostName, {
        information: information.output.system_information_data ?? [],
        processors: processors.output.processor_array ?? [],
        performance: performance.output.system_performance_information_data ?? [],
      });
    },
    async diskPoolRegions(pool, opts) {
      return (await records(2, 3, groupOf(pool), opts)).map(parseRegion);
    },
    async diskPoolVolumes(pool, opts) {
      const [definition] = await records(1, 3, groupOf(pool), opts);
      return (definition ?? '').trim().split(/\s+/).slice(1);
    },
    async volumes(opts): Promise<HostVolume[]> {
      return (await records(1, 1, '*', opts)).map((r) => {
        const [volume_name = '', volume_type = '', volume_size = ''] = r.trim().split(/\s+/);
        return { volume_name, volume_type, volume_size };
      });
    },
    async ssi(opts) {
      const res = await smapi('SSI_Query', target, {}, [[4, 3008]], opts);
      if (res.rc !== 0) return [];
      const o = res.output;
      const members = o.ssi_member_array ?? [];
      const lines = [`ssi_name = ${o.ssi_name ?? ''}`, `ssi_mode = ${o.ssi_mode ?? ''}`, `ssi_pdr = ${o.ssi_pdr ?? ''}`,
        `cross_system_timeouts = ${o.cross_system_timeouts ?? ''}`, `output.ssiInfoCount = ${members.length}`, ''];
      for (const m of members) {
        const [slot = '', id = '', state = '', pdr = '', received = ''] = m.trim().split(/\s+/);
        lines.push(`member_slot = ${slot}`, `member_system_id = ${id}`, `member_state = ${state}`,
          `member_pdr_heartbeat = ${pdr}`, `member_received_heartbeat = ${received}`, '');
      }
      return lines;
    },
  };
}

/**
 * `inner` with each read kept per facts period and shared while in flight (live-facts.ts). A shared
 * read runs without any one reader's abort signal: one reader going away must not fail the others.
 */
export function cachedHostQueries(inner: HostQueries, facts: LiveFacts): HostQueries {
  return {
    describe: () => facts.read('describe', () => inner.describe()),
    diskPoolRegions: (pool) => facts.read(`regions:${pool}`, () => inner.diskPoolRegions(pool)),
    diskPoolVolumes: (pool) => facts.read(`volumes:${pool}`, () => inner.diskPoolVolumes(pool)),
    volumes: () => facts.read('volumes', () => inner.volumes()),
    ssi: () => facts.read('ssi', () => inner.ssi()),
  };
}
