import { InvalidInputError } from '../../errors.js';
import { parseDirectory, sizeToUnits } from '../directory/directory.js';
import { normalizeShare } from '../../api/zguest.js';
import { cpuAddress } from '../directory/render.js';
import { withStatements, type StatementFamily } from '../directory/families.js';
import type { DirectoryRewrite } from '../port.js';

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

const cpuOf = (line: string) => /^COMMAND\s+DEFINE\s+CPU\s+(\S+)/i.exec(line.trim())?.[1]?.toUpperCase();

/** 'COMMAND_DEFINE_CPU=CPUADDR=02 TYPE=IFL' → the CPU 02 and its statement; 'SHARE=RELATIVE=200' → the SHARE statement */
function parseKeyword(kw: string): { kind: 'cpu'; addr: string; line: string } | { kind: 'share'; line: string } | undefined {
  const cpu = /^COMMAND_DEFINE_CPU=CPUADDR=(\S+)(?:\s+TYPE=(\S+))?/.exec(kw);
  if (cpu) return { kind: 'cpu', addr: cpu[1].toUpperCase(), line: `COMMAND DEFINE CPU ${cpu[1].toUpperCase()}${cpu[2] ? ` TYPE ${cpu[2]}` : ''}` };
  const share = /^SHARE=(\S+)=(\S+)$/.exec(kw);
  return share ? { kind: 'share', line: `SHARE ${share[1]} ${share[2]}` } : undefined;
}

export const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/**
 * feilong's keyword items for a directory CPU count change from `current` to `count`: the CPUs to add
 * with the default SHARE (Image_Definition_Update_DM), or the CPUs to delete (Image_Definition_Delete_DM)
 * and the default SHARE.
 */
export function cpuKeywords(current: number, count: number): { update: string[]; remove: string[] } {
  const share = `SHARE=RELATIVE=${100 * count}`;
  if (count > current) return { update: [...range(current, count).map((n) => `COMMAND_DEFINE_CPU=CPUADDR=${cpuAddress(n)} TYPE=IFL`), share], remove: [] };
  if (count < current) return { update: [share], remove: range(count, current).map((n) => `COMMAND_DEFINE_CPU=CPUADDR=${cpuAddress(n)}`) };
  return { update: [], remove: [] };
}

/** The SHARE keyword item of a SHARE statement value ('RELATIVE 400' → 'SHARE=RELATIVE=400'). */
export function shareKeyword(share: string): string {
  const [type, value] = share.split(' ');
  return `SHARE=${type}=${value}`;
}

/** The entry after Image_Definition_Update_DM with these keyword items: the same statements DirMaint writes. */
export function withKeywordUpdates(lines: readonly string[], keywords: readonly string[]): string[] {
  const out = [...lines];
  for (const kw of keywords.map(parseKeyword)) {
    if (kw?.kind === 'share') {
      const at = out.findIndex((l) => /^SHARE\s/i.test(l.trim()));
      if (at >= 0) out[at] = kw.line;
      else out.push(kw.line);
    } else if (kw?.kind === 'cpu' && !out.some((l) => cpuOf(l) === kw.addr)) {
      const last = out.reduce((at, l, i) => (cpuOf(l) ? i : at), -1);
      out.splice(last >= 0 ? last + 1 : out.length, 0, kw.line);
    }
  }
  return out;
}

/** The entry after Image_Definition_Delete_DM of these COMMAND_DEFINE_CPU items. */
export function withoutKeywordCpus(lines: readonly string[], keywords: readonly string[]): string[] {
  const gone = new Set(keywords.map(parseKeyword).flatMap((k) => (k?.kind === 'cpu' ? [k.addr] : [])));
  return lines.filter((l) => !gone.has(cpuOf(l) ?? ''));
}

/** Rewrites the storage field of the USER statement (the 4th token), keeping everything else. */
export function setUserStorage(lines: readonly string[], memory: string): string[] {
  return setUserToken(lines, 3, memory);
}

/** Rewrites one token of the USER statement (USER id password storage maxstorage privclasses). */
export function setUserToken(lines: readonly string[], index: number, value: string): string[] {
  return lines.map((line) => {
    const tokens = line.trim().split(/\s+/);
    if (tokens[0] !== 'USER' && tokens[0] !== 'IDENTITY') return line;
    tokens[index] = value.toUpperCase();
    return tokens.join(' ');
  });
}

/** The entry with a rewrite's changes applied, as the separate updates would leave it (pure: the adapter, dry runs and tests). */
export function rewriteEntry(lines: readonly string[], change: DirectoryRewrite): string[] {
  let out = change.memory ? setUserStorage(lines, change.memory) : [...lines];
  if (change.maxMemory) out = setUserToken(out, 4, change.maxMemory);
  for (const [family, statements] of Object.entries(change.statements ?? {})) out = withStatements(out, family as StatementFamily, statements ?? []);
  if (change.cpus !== undefined) {
    const { update, remove } = cpuKeywords(parseDirectory(out).cpus, change.cpus);
    out = withKeywordUpdates(withoutKeywordCpus(out, remove), update);
  }
  return change.share ? withKeywordUpdates(out, [shareKeyword(normalizeShare(change.share))]) : out;
}
