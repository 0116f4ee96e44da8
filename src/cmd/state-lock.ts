/**
 * One process per state directory. The lock is flock(2) on `<state-dir>/lock`, held by an open file
 * description of this process: the kernel drops it when the process ends, however it ends, so it never
 * lies after a crash as a pid file would. Node has no flock of its own and we take no native addon for
 * one: util-linux's `flock -n 3` locks the description we hand it as its fd 3 and exits, and the lock
 * stays with the description, which only we keep open (Node opens files close-on-exec, so no child
 * of ours inherits it). The file's text says who holds it, for the message a second process prints.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ZvmError } from '../errors.js';

/** What the holder writes into the lock file: enough for the other process to say who holds it. */
export interface LockHolder {
  pid: number;
  restUrl?: string;
  adminUrl?: string;
}

export interface StateLock {
  /** records the holder's addresses once it listens */
  announce(urls: Omit<LockHolder, 'pid'>): void;
  release(): void;
}

/** flock's exit status for "held by another" under `-E` (its default, 1, is also its usage error). */
const HELD = 75;

export class StateDirInUseError extends ZvmError {
  constructor(dir: string, holder: LockHolder | undefined) {
    super('CONFLICT', `state directory ${dir} is in use by ${describeHolder(holder)}; stop that process first, or give this one another --state-dir`);
  }
}

function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'another process (it is starting)';
  const urls = [holder.restUrl && `REST ${holder.restUrl}`, holder.adminUrl && `admin ${holder.adminUrl}`].filter(Boolean);
  return `process ${holder.pid}${urls.length ? ` (${urls.join(', ')})` : ' (starting)'}`;
}

/** Takes the lock (making the directory if need be) or throws StateDirInUseError naming the holder. */
export function lockStateDir(dir: string): StateLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'lock');
  const fd = openSync(path, 'a+');
  const r = spawnSync('flock', ['--nonblock', '--exclusive', '--conflict-exit-code', String(HELD), '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
  if (r.status !== 0) {
    closeSync(fd);
    if (r.status === HELD) throw new StateDirInUseError(resolve(dir), readHolder(path));
    const why = r.error ? r.error.message : r.stderr.toString().trim();
    throw new ZvmError('INTERNAL', `cannot lock the state directory ${resolve(dir)} (the flock command of util-linux: ${why})`);
  }
  const write = (holder: LockHolder) => {
    ftruncateSync(fd, 0);
    writeSync(fd, JSON.stringify(holder) + '\n', 0);
  };
  write({ pid: process.pid });
  return {
    announce: (urls) => write({ pid: process.pid, ...urls }),
    release: () => closeSync(fd),
  };
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    return undefined; // the holder has locked but not yet written
  }
}
