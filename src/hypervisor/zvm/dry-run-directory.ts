/**
 * Pure: the directory entry after a recorded (unsent) write, so that a later read in the same dry run
 * sees what the host would then hold (a resize rewrites the entry it read after the CPU change).
 * Covers the edits a guest plan makes before a read; other writes leave the lines as they were.
 */
import type { SmapiParams } from '../smapi/types.js';

const cpuOf = (line: string) => /^COMMAND\s+DEFINE\s+CPU\s+(\S+)/i.exec(line.trim())?.[1]?.toUpperCase();

/** 'COMMAND_DEFINE_CPU=CPUADDR=02 TYPE=IFL' → the CPU 02 and its statement; 'SHARE=RELATIVE=200' → the SHARE statement */
function parseKeyword(kw: string): { kind: 'cpu'; addr: string; line: string } | { kind: 'share'; line: string } | undefined {
  const cpu = /^COMMAND_DEFINE_CPU=CPUADDR=(\S+)(?:\s+TYPE=(\S+))?/.exec(kw);
  if (cpu) return { kind: 'cpu', addr: cpu[1].toUpperCase(), line: `COMMAND DEFINE CPU ${cpu[1].toUpperCase()}${cpu[2] ? ` TYPE ${cpu[2]}` : ''}` };
  const share = /^SHARE=(\S+)=(\S+)$/.exec(kw);
  return share ? { kind: 'share', line: `SHARE ${share[1]} ${share[2]}` } : undefined;
}

function update(lines: string[], keywords: string[]): string[] {
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

/** A list parameter or output field; the recorded calls are untyped (the SmapiCaller seam). */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function predictDirectory(fn: string, p: SmapiParams, before: string[] | undefined): string[] | undefined {
  switch (fn) {
    case 'Image_Create_DM':
    case 'Image_Replace_DM':
      return stringsOf(p.image_record_array).map((l) => l.trimEnd());
    case 'Image_Delete_DM':
      return undefined;
    case 'Image_Definition_Update_DM':
      return before && update(before, stringsOf(p.definition_update_directory_keyword_parameter_list));
    case 'Image_Definition_Delete_DM': {
      const gone = new Set(stringsOf(p.definition_delete_directory_keyword_parameter_list).map((k) => parseKeyword(k)).flatMap((k) => (k?.kind === 'cpu' ? [k.addr] : [])));
      return before?.filter((l) => !gone.has(cpuOf(l) ?? ''));
    }
    default:
      return before;
  }
}
