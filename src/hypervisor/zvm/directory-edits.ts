import { InvalidInputError } from '../../errors.js';
import { sizeToUnits } from '../directory/directory.js';

export interface DiskAllocation {
  /** SMAPI device type: 3390 for ECKD groups, 9336 for FBA groups. */
  deviceType: '3390' | '9336';
  group: string;
  /** cylinders (3390) or 512-byte blocks (9336) */
  units: number;
}

/** 'ECKD:POOL1' + '10G' → what Image_Disk_Create_DM needs (AUTOG from that group). */
export function diskAllocation(pool: string, size: string): DiskAllocation {
  const m = /^(ECKD|FBA):(\S+)$/i.exec(pool);
  if (!m) throw new InvalidInputError(`disk pool '${pool}' must be ECKD:<name> or FBA:<name>`);
  const deviceType = m[1].toUpperCase() === 'ECKD' ? '3390' : '9336';
  return { deviceType, group: m[2].toUpperCase(), units: sizeToUnits(deviceType, size) };
}

/** Rewrites the storage field of the USER statement (the 4th token), keeping everything else. */
export function setUserStorage(lines: readonly string[], memory: string): string[] {
  return lines.map((line) => {
    const tokens = line.trim().split(/\s+/);
    if (tokens[0] !== 'USER' && tokens[0] !== 'IDENTITY') return line;
    tokens[3] = memory.toUpperCase();
    return tokens.join(' ');
  });
}
