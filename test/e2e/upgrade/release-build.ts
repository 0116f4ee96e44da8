/**
 * Release 0.1.0's compiled build (test/fixtures/release-0.1.0/dist.tar.gz: its package.json and dist/,
 * as its image holds them) unpacked into a directory that resolves its dependencies from this
 * repository's node_modules (the release's lockfile is this one's ancestor), and started as a process.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { spawnLogged, type LoggedProcess } from '../../kube/processes.js';
import { REPO } from '../operator/helpers.js';
import { FIXTURE_DIR } from './release.js';

/** Unpacks the release build into `dir`; answers its dist/cmd/main.js. */
export function unpackRelease(dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', join(FIXTURE_DIR, 'dist.tar.gz'), '-C', dir]);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return join(dir, 'dist/cmd/main.js');
}

/** `node <main> <args>`, output appended to `logPath`. */
export function spawnRelease(main: string, logPath: string, args: string[]): LoggedProcess {
  return spawnLogged(basename(logPath, '.log'), process.execPath, [main, ...args], logPath);
}
