/**
 * The user directory of the simulated host: entries by userid, profiles and locks, and the rules
 * of docs/smapi.md §5.4 that every _DM call shares.
 */
import {
  deviceRange,
  normalizeStatements,
  normalizeVdev,
  parseMdisk,
  parseNicdefs,
  tokensOf,
} from '../directory/directory.js';
import { SimFault } from './fault.js';
import type { DirEntry, SimState } from './state.js';

export function requireEntry(fn: string, state: SimState, userid: string): DirEntry {
  const entry = state.entries.get(userid);
  if (!entry) throw new SimFault(fn, 400, 4, `${userid} is not in the directory`);
  return entry;
}

/** Other _DM updates on a locked entry → 400/12; on a locked device → 404/12. */
export function checkUnlocked(fn: string, state: SimState, userid: string, vdev?: string): void {
  if (state.locks.has(userid)) throw new SimFault(fn, 400, 12, `${userid} is locked`);
  if (vdev && state.locks.has(`${userid}/${vdev}`)) throw new SimFault(fn, 404, 12, `${userid} ${vdev} is locked`);
}

/** An entry ready for an update: exists and is not locked. */
export function entryForUpdate(fn: string, state: SimState, userid: string, vdev?: string): DirEntry {
  const entry = requireEntry(fn, state, userid);
  checkUnlocked(fn, state, userid, vdev);
  return entry;
}

/** Every device number the entry occupies: MDISK, NICDEF (all its devices), DEDICATE, LINK, CONSOLE, SPOOL. */
export function occupiedDevices(statements: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const nic of parseNicdefs(statements).values()) {
    for (const d of deviceRange(nic.vdev, nic.devices)) out.add(d);
  }
  for (const s of statements) {
    const t = tokensOf(s);
    let dev: string | undefined;
    if (t[0] === 'MDISK' || t[0] === 'DEDICATE' || t[0] === 'CONSOLE' || t[0] === 'SPOOL') dev = t[1];
    else if (t[0] === 'LINK') dev = t[3];
    const vdev = dev ? normalizeVdev(dev) : undefined;
    if (vdev) out.add(vdev);
  }
  return out;
}

/** Which statement kind uses a device number, if any (decides 408/4 vs 404/4). */
export function deviceUser(statements: readonly string[], vdev: string): 'MDISK' | 'OTHER' | undefined {
  for (const s of statements) {
    const t = tokensOf(s);
    if (t[0] === 'MDISK' && normalizeVdev(t[1] ?? '') === vdev) return 'MDISK';
  }
  return occupiedDevices(statements).has(vdev) ? 'OTHER' : undefined;
}

/**
 * Checks a whole entry given by Image_Create_DM or Image_Replace_DM and returns its normalized
 * statements: exactly one USER naming the target (400/40; other id → 400/4 [inf]); INCLUDE of a
 * known profile (436/4), at most one (436/40).
 */
export function validateEntry(fn: string, state: SimState, target: string, records: readonly string[]): string[] {
  const statements = normalizeStatements(records).map((s) => (s.startsWith('*') ? s : s.toUpperCase()));
  const users = statements.filter((s) => /^(USER|IDENTITY) /.test(s));
  if (users.length === 0) throw new SimFault(fn, 24, 524, 'entry has no USER statement');
  if (users.length > 1) throw new SimFault(fn, 400, 40, 'entry has more than one USER statement');
  if (!statements[0].startsWith('USER ') && !statements[0].startsWith('IDENTITY ')) {
    throw new SimFault(fn, 24, 519, 'USER must be the first statement');
  }
  if (tokensOf(users[0])[1] !== target) throw new SimFault(fn, 400, 4, `USER statement does not name ${target}`);
  const includes = statements.filter((s) => s.startsWith('INCLUDE '));
  if (includes.length > 1) throw new SimFault(fn, 436, 40, 'more than one INCLUDE');
  for (const inc of includes) {
    const profile = tokensOf(inc)[1];
    if (!profile || !state.profiles.has(profile)) throw new SimFault(fn, 436, 4, `profile ${profile} not found`);
  }
  return statements;
}

/** MDISK statements of an entry, by vdev. */
export function mdisksOf(statements: readonly string[]) {
  const out = new Map<string, NonNullable<ReturnType<typeof parseMdisk>>>();
  for (const s of statements) {
    const d = parseMdisk(tokensOf(s));
    if (d) out.set(d.vdev, d);
  }
  return out;
}

/** Removes statements matching `drop`; returns how many were removed. */
export function removeStatements(entry: DirEntry, drop: (tokens: string[]) => boolean): number {
  const before = entry.statements.length;
  entry.statements = entry.statements.filter((s) => s.startsWith('*') || !drop(tokensOf(s)));
  return before - entry.statements.length;
}

/** Inserts a statement after the last statement matching `after`, else at the end. */
export function insertStatement(entry: DirEntry, statement: string, after?: (tokens: string[]) => boolean): void {
  let at = -1;
  if (after) {
    entry.statements.forEach((s, i) => {
      if (!s.startsWith('*') && after(tokensOf(s))) at = i;
    });
  }
  if (at < 0) entry.statements.push(statement);
  else entry.statements.splice(at + 1, 0, statement);
}
