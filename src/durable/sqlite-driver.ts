/**
 * The SQLite driver: Node's built-in `node:sqlite` (no native module to compile at install, nothing per
 * architecture in the image). Loaded on first use, so processes that keep no SQLite file never load it,
 * and with a clear error on a Node that lacks it. Node 22 flags the module experimental at load; that one
 * warning is dropped (the API used here is stable across 22.18+ and 24).
 */
import type * as NodeSqlite from 'node:sqlite';
import { ZvmError } from '../errors.js';

/** The oldest Node whose node:sqlite has what we use (returnArrays, isTransaction). */
export const MIN_NODE_FOR_SQLITE = '22.18.0';

let driver: typeof NodeSqlite | undefined;

function olderThan(version: string, min: string): boolean {
  const a = version.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** Throws a ZvmError naming the Node version needed when Node `running` lacks what we use of node:sqlite. */
export function assertNodeHasSqlite(running: string, execPath = process.execPath): void {
  if (!olderThan(running, MIN_NODE_FOR_SQLITE)) return;
  throw new ZvmError('UNAVAILABLE', `this program keeps its state with Node's built-in SQLite (node:sqlite), which needs Node.js ${MIN_NODE_FOR_SQLITE} or newer; this is Node.js v${running} (${execPath}): start it with a newer node`);
}

/** The `node:sqlite` module; a ZvmError naming the Node version needed when this Node lacks it. */
export function sqliteDriver(): typeof NodeSqlite {
  if (driver) return driver;
  assertNodeHasSqlite(process.versions.node);
  const load = (process as { getBuiltinModule: (id: string) => unknown }).getBuiltinModule;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!/SQLite is an experimental feature/.test(text)) (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    driver = load('node:sqlite') as typeof NodeSqlite;
  } finally {
    process.emitWarning = emitWarning;
  }
  return driver;
}
