/**
 * Keyword updates of a directory entry: Image_Definition_Update_DM / _Delete_DM (the
 * COMMAND_DEFINE_CPU and SHARE keywords feilong uses, plus CPU on delete) and
 * Image_CPU_Define_DM / Image_CPU_Delete_DM. CPU counts respect MACHINE ESA (520/32).
 */
import { commandDefineCpuAddress, normalizeCpuAddress, parseDirectory, tokensOf } from '../../directory/directory.js';
import { spec } from '../context.js';
import type { HandlerSpec } from '../context.js';
import { entryForUpdate, insertStatement } from '../directory-store.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import type { DirEntry } from '../state.js';

const isCpuStatement = (t: string[]) => t[0] === 'CPU' || commandDefineCpuAddress(t) !== undefined;
const isCpuOrMachine = (t: string[]) => isCpuStatement(t) || t[0] === 'MACHINE' || t[0] === 'USER';

/** 'CPUADDR=02 TYPE=IFL' → {CPUADDR: '02', TYPE: 'IFL'} */
function subKeywords(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const tok of value.trim().split(/\s+/)) {
    const eq = tok.indexOf('=');
    if (eq > 0) out.set(tok.slice(0, eq).toUpperCase(), tok.slice(eq + 1).toUpperCase());
  }
  return out;
}

function splitItem(item: string): [string, string] {
  const eq = item.indexOf('=');
  return eq < 0 ? [item.trim().toUpperCase(), ''] : [item.slice(0, eq).trim().toUpperCase(), item.slice(eq + 1)];
}

function unknownKeyword(fn: string, key: string): SimFault {
  return new SimFault(fn, 8, 3002, `unknown keyword ${key}`, { error_data: [`UNKNOWN_DIRECTORY_KEYWORD_PARAMETER=${key}`] });
}

function cpuAddrOf(fn: string, value: string): string {
  const addr = normalizeCpuAddress(subKeywords(value).get('CPUADDR') ?? '');
  if (!addr) throw new SimFault(fn, 8, 3003, 'CPUADDR missing or invalid', { error_data: [`INVALID_OPERAND=${value.trim()}`] });
  return addr;
}

/** Fails with 520/32 when the entry would define more CPUs than MACHINE ESA allows. */
function checkCpuMax(fn: string, statements: string[]): void {
  const dir = parseDirectory(statements);
  const machine = statements.some((s) => tokensOf(s)[0] === 'MACHINE');
  if (machine && dir.cpus > dir.maxCpus) throw new SimFault(fn, 520, 32, `more than ${dir.maxCpus} CPUs`);
}

/** Applies the update items to a copy of the entry; the caller commits only if all succeed. */
function applyUpdates(fn: string, entry: DirEntry, items: string[]): string[] {
  const draft: DirEntry = { userid: entry.userid, statements: [...entry.statements] };
  for (const item of items) {
    const [key, value] = splitItem(item);
    if (key === 'COMMAND_DEFINE_CPU') {
      const addr = cpuAddrOf(fn, value);
      const type = subKeywords(value).get('TYPE') ?? 'IFL';
      draft.statements = draft.statements.filter((s) => commandDefineCpuAddress(tokensOf(s)) !== addr);
      insertStatement(draft, `COMMAND DEFINE CPU ${addr} TYPE ${type}`, isCpuOrMachine);
    } else if (key === 'SHARE') {
      const share = value.trim().toUpperCase().replace(/[=\s]+/g, ' ');
      if (!/^(RELATIVE \d+|ABSOLUTE \d+%?)/.test(share)) {
        throw new SimFault(fn, 8, 3003, 'invalid SHARE', { error_data: [`INVALID_OPERAND=${value.trim()}`] });
      }
      const i = draft.statements.findIndex((s) => tokensOf(s)[0] === 'SHARE');
      if (i >= 0) draft.statements[i] = `SHARE ${share}`;
      else insertStatement(draft, `SHARE ${share}`, isCpuOrMachine);
    } else {
      throw unknownKeyword(fn, key);
    }
  }
  checkCpuMax(fn, draft.statements);
  return draft.statements;
}

function applyDeletes(fn: string, entry: DirEntry, items: string[]): string[] {
  let statements = [...entry.statements];
  for (const item of items) {
    const [key, value] = splitItem(item);
    let drop: (t: string[]) => boolean;
    if (key === 'CPU') {
      const addr = cpuAddrOf(fn, value);
      drop = (t) => t[0] === 'CPU' && normalizeCpuAddress(t[1] ?? '') === addr;
    } else if (key === 'COMMAND_DEFINE_CPU') {
      const addr = cpuAddrOf(fn, value);
      drop = (t) => commandDefineCpuAddress(t) === addr;
    } else if (key === 'SHARE') {
      drop = (t) => t[0] === 'SHARE';
    } else {
      throw unknownKeyword(fn, key);
    }
    const kept = statements.filter((s) => s.startsWith('*') || !drop(tokensOf(s)));
    if (kept.length === statements.length) {
      throw key === 'SHARE' ? new SimFault(fn, 8, 4, 'no SHARE statement') : new SimFault(fn, 520, 30, `${item} not found`);
    }
    statements = kept;
  }
  return statements;
}

/** Image_CPU_Define_DM's dedicate_cpu: 0 writes nothing, 1 NODEDICATE, 2 DEDICATE. */
const DEDICATE_KEYWORD: Record<number, string> = { 1: 'NODEDICATE', 2: 'DEDICATE' };
export const definitionHandlers: Record<string, HandlerSpec> = {
  Image_Definition_Update_DM: spec((ctx, target, p) => {
    const items = p.list('definition_update_directory_keyword_parameter_list', 2);
    if (items.length === 0) throw syntaxFault(p.fn, 2, Syntax.missing, 'no keywords given');
    const entry = entryForUpdate(p.fn, ctx.state, target);
    entry.statements = applyUpdates(p.fn, entry, items);
  }, true),

  Image_Definition_Delete_DM: spec((ctx, target, p) => {
    const items = p.list('definition_delete_directory_keyword_parameter_list', 2);
    if (items.length === 0) throw syntaxFault(p.fn, 2, Syntax.missing, 'no keywords given');
    const entry = entryForUpdate(p.fn, ctx.state, target);
    entry.statements = applyDeletes(p.fn, entry, items);
  }, true),

  /**
   * Adds `CPU nn [BASE] [CPUID x] [NODEDICATE|DEDICATE] [CRYPTO]`; an address in use → 404/4 [sim choice].
   * dedicate_cpu is IBM's 0 unspecified, 1 NODEDICATE, 2 DEDICATE (SMAPI reference; smcli's help, pysmapi).
   */
  Image_CPU_Define_DM: spec((ctx, target, p) => {
    const addr = normalizeCpuAddress(p.str('cpu_address', 2, { min: 1, max: 2 }));
    if (!addr) throw syntaxFault(p.fn, 2, Syntax.notHex, 'cpu_address must be hexadecimal');
    const base = p.int('base_cpu', 3, { min: 0, max: 2, fallback: 0 }) === 1;
    const cpuid = p.str('cpuid', 4, { max: 6 }).toUpperCase();
    const dedicate = DEDICATE_KEYWORD[p.int('dedicate_cpu', 5, { min: 0, max: 2, fallback: 0 })] ?? '';
    const crypto = p.int('crypto', 6, { min: 0, max: 2, fallback: 0 }) === 1;
    const entry = entryForUpdate(p.fn, ctx.state, target);
    const tokens = entry.statements.map(tokensOf);
    const inUse = tokens.some((t) => (t[0] === 'CPU' && normalizeCpuAddress(t[1] ?? '') === addr) || commandDefineCpuAddress(t) === addr);
    if (inUse) throw new SimFault(p.fn, 404, 4, `CPU ${addr} already defined`);
    if (base && tokens.some((t) => t[0] === 'CPU' && t.includes('BASE'))) throw new SimFault(p.fn, 520, 24, 'only one BASE CPU');
    const stmt = ['CPU', addr, base ? 'BASE' : '', cpuid ? `CPUID ${cpuid}` : '', dedicate, crypto ? 'CRYPTO' : '']
      .filter((s) => s !== '')
      .join(' ');
    const draft: DirEntry = { userid: entry.userid, statements: [...entry.statements] };
    insertStatement(draft, stmt, isCpuOrMachine);
    checkCpuMax(p.fn, draft.statements);
    entry.statements = draft.statements;
  }, true),

  Image_CPU_Delete_DM: spec((ctx, target, p) => {
    const addr = normalizeCpuAddress(p.str('cpu_address', 2, { min: 1, max: 2 }));
    if (!addr) throw syntaxFault(p.fn, 2, Syntax.notHex, 'cpu_address must be hexadecimal');
    const entry = entryForUpdate(p.fn, ctx.state, target);
    const kept = entry.statements.filter((s) => {
      const t = tokensOf(s);
      return s.startsWith('*') || !(t[0] === 'CPU' && normalizeCpuAddress(t[1] ?? '') === addr);
    });
    if (kept.length === entry.statements.length) throw new SimFault(p.fn, 520, 30, `CPU ${addr} not found`);
    entry.statements = kept;
  }, true),
};
