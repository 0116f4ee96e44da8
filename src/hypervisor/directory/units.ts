import { InvalidInputError } from '../../errors.js';

/** feilong's size of one 3390 cylinder in bytes (docs/smapi.md §5.4). */
export const BYTES_PER_CYLINDER = 737_280;
export const BYTES_PER_BLOCK = 512;

const UNIT_FACTORS: Record<string, number> = {
  B: 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
};

/** '10G', '512m', '1T' → bytes; a bare number is returned as undefined (it is a unit count). */
function sizeSuffixBytes(size: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([BKMGT])?\s*$/i.exec(size);
  if (!m) throw new InvalidInputError(`invalid size '${size}'`);
  if (!m[2]) return undefined;
  return Math.ceil(Number(m[1]) * UNIT_FACTORS[m[2].toUpperCase()]);
}

/** USER-statement storage ('2G', '1000M', '1024m', bare MB) → megabytes. */
export function memoryToMB(memory: string): number {
  const m = /^\s*(\d+)\s*([KMGT])?\s*$/i.exec(memory);
  if (!m) throw new InvalidInputError(`invalid memory size '${memory}'`);
  const n = Number(m[1]);
  switch ((m[2] ?? 'M').toUpperCase()) {
    case 'K':
      return Math.ceil(n / 1024);
    case 'G':
      return n * 1024;
    case 'T':
      return n * 1024 * 1024;
    default:
      return n;
  }
}

/** Megabytes → the form feilong writes: `<n>G` when a whole number of GiB, else `<n>M`. */
export function formatMemoryMB(mb: number): string {
  return mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
}

/** '10G' → 3390 cylinders, ceil(bytes / 737280); a bare number is already a cylinder count. */
export function sizeToCylinders(size: string): number {
  const bytes = sizeSuffixBytes(size);
  return bytes === undefined ? Math.ceil(Number(size)) : Math.ceil(bytes / BYTES_PER_CYLINDER);
}

/** '512M' → FBA 512-byte blocks, ceil(bytes / 512); a bare number is already a block count. */
export function sizeToBlocks(size: string): number {
  const bytes = sizeSuffixBytes(size);
  return bytes === undefined ? Math.ceil(Number(size)) : Math.ceil(bytes / BYTES_PER_BLOCK);
}

/** True for the FBA device types (9336, FB-512, FBA); everything else is counted in cylinders. */
export function isFbaDeviceType(deviceType: string): boolean {
  const t = deviceType.toUpperCase();
  return t === '9336' || t === 'FB-512' || t === 'FBA' || t.startsWith('9336-');
}

/** Size in the units of the device type (cylinders for 3390, blocks for FBA). */
export function sizeToUnits(deviceType: string, size: string): number {
  return isFbaDeviceType(deviceType) ? sizeToBlocks(size) : sizeToCylinders(size);
}

/** Units of a device type → bytes. */
export function unitsToBytes(deviceType: string, units: number): number {
  return units * (isFbaDeviceType(deviceType) ? BYTES_PER_BLOCK : BYTES_PER_CYLINDER);
}
