import type { DiskPoolInfo, HostInfo } from './port.js';

/** 3390 cylinder and FBA block sizes in bytes (reference/feilong-rest.md §3.12). */
const CYLINDER_BYTES = 737280;
const BLOCK_BYTES = 512;

/** `KEY=SUB=value SUB2=value` items of System_Information_Query, as a map of maps. */
function parseItems(lines: string[]): Map<string, Map<string, string>> {
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

function toMB(size: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(size ?? '');
  if (!m) return 0;
  const scale: Record<string, number> = { '': 1 / (1024 * 1024), K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 };
  return Number(m[1]) * scale[m[2].toUpperCase()];
}

export function parseHostInfo(hostName: string, lines: string[]): HostInfo {
  const items = parseItems(lines);
  const cp = items.get('CP_LEVEL');
  const storage = items.get('STORAGE');
  const cpuid = items.get('CPUID')?.get('ID') ?? '';
  const perf = items.get('CPU_COUNT');
  return {
    hostname: hostName,
    version: cp?.get('VERSION') ?? '',
    cpus: Number(perf?.get('TOTAL') ?? 0),
    cpusUsed: Number(perf?.get('USED') ?? 0),
    memoryMB: toMB(storage?.get('ONLINE')),
    memoryMBUsed: toMB(storage?.get('USED')),
    iplTime: cp ? `IPL at ${cp.get('IPL_DATE') ?? ''} ${cp.get('IPL_TIME') ?? ''} ${cp.get('IPL_TIME_ZONE') ?? ''}`.trim() : '',
    // CPUID is version(2) serial(6) machine type(4) format(4)
    cecModel: cpuid.slice(8, 12),
  };
}

/** Extent size in bytes of one Image_Volume_Space_Query_DM record: `VOLID DEVTYPE START SIZE ...`. */
function extentBytes(record: string): number {
  const [, devtype, , size] = record.trim().split(/\s+/);
  const unit = devtype?.startsWith('3390') ? CYLINDER_BYTES : BLOCK_BYTES;
  return Number(size ?? 0) * unit;
}

export function parsePoolSpace(pool: string, free: string[], used: string[]): DiskPoolInfo {
  const sum = (records: string[]) => records.reduce((total, r) => total + extentBytes(r), 0);
  const freeBytes = sum(free ?? []);
  const usedBytes = sum(used ?? []);
  return { pool, totalBytes: freeBytes + usedBytes, usedBytes, freeBytes };
}
