/**
 * Whole-file state documents that survive a crash at any instant: a write goes to a temp file in the
 * same directory, is fsync'ed, renamed over the old file, and the directory is fsync'ed so that the
 * rename itself is on disk. The file is therefore always the previous or the next complete state.
 * Used by the embedded store (store.json) and by the simulated host (sim.json).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ZvmError } from '../errors.js';
import type { Logger } from '../log.js';

function tempPrefix(path: string): string {
  return `${basename(path)}.tmp-`;
}

/** What a person can do about a state file the process cannot start from. */
export function damagedStateAdvice(path: string): string {
  return `restore ${path} from a backup, or move it aside (e.g. mv ${path} ${path}.damaged) to start with an empty state`;
}

/** The error that stops a start over an unreadable or damaged state file; it names the file and the way out. */
export function damagedStateError(path: string, what: string, cause?: unknown): ZvmError {
  return new ZvmError('INTERNAL', `state file ${path} ${what}; refusing to start over it: ${damagedStateAdvice(path)}`, { cause });
}

/** Temp files are never read back: one left by a crash is an unfinished write, not a state. */
function removeUnfinishedWrites(path: string, log: Logger): void {
  const dir = dirname(path);
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(tempPrefix(path))) continue;
    rmSync(join(dir, entry), { force: true });
    log.warn({ file: entry }, 'removed an unfinished state file left by an earlier run');
  }
}

/**
 * Reads a state document at start-up: undefined when there is none yet, the parsed JSON otherwise.
 * Creates the directory and clears unfinished temp files. An unreadable file or invalid JSON (e.g.
 * truncated by a full disk) throws an error that names the file and what to do.
 */
export function loadJsonState(path: string, log: Logger): unknown {
  mkdirSync(dirname(path), { recursive: true });
  removeUnfinishedWrites(path, log);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw damagedStateError(path, `cannot be read (${(err as Error).message})`, err);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw damagedStateError(path, `is not valid JSON (${(err as Error).message}; ${text.length} bytes)`, err);
  }
}

async function syncDirectory(dir: string, log: Logger): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (err) {
    log.debug({ err, dir }, 'cannot open the directory to fsync it');
    return;
  }
  try {
    await handle.sync();
  } catch (err) {
    // Some file systems refuse fsync on a directory; the rename itself has still happened.
    log.debug({ err, dir }, 'directory fsync not supported');
  } finally {
    await handle.close();
  }
}

/** Replaces `path` with `data`; resolves once data and rename are on disk. */
export async function writeFileDurably(path: string, data: string, log: Logger): Promise<void> {
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dirname(path), log);
}
