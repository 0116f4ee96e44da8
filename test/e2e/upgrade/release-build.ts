/**
 * Release 0.1.0's compiled build (test/fixtures/release-0.1.0/dist.tar.gz: its package.json and dist/,
 * as its image holds them) unpacked into a directory that resolves its dependencies from this
 * repository's node_modules (the release's lockfile is this one's ancestor), and started as a process.
 * One dependency of the release is gone from this lockfile: better-sqlite3 (now Node's node:sqlite). The
 * release's controller and REST pods import it but never open a database (their state is the apiserver),
 * so it resolves to a module that fails loudly if they ever do.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { spawnLogged, type LoggedProcess } from '../../kube/processes.js';
import { REPO } from '../operator/helpers.js';
import { FIXTURE_DIR } from './release.js';

/** Unpacks the release build into `dir`; answers its dist/cmd/main.js. */
export function unpackRelease(dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', join(FIXTURE_DIR, 'dist.tar.gz'), '-C', dir]);
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry !== 'better-sqlite3') symlinkSync(join(REPO, 'node_modules', entry), join(modules, entry));
  }
  const gone = join(modules, 'better-sqlite3');
  mkdirSync(gone);
  writeFileSync(join(gone, 'package.json'), JSON.stringify({ name: 'better-sqlite3', main: 'index.js' }));
  writeFileSync(join(gone, 'index.js'), "module.exports = function Database() { throw new Error('release 0.1.0 opened SQLite in a pod: better-sqlite3 is not installed for it'); };\n");
  return join(dir, 'dist/cmd/main.js');
}

/** `node <main> <args>`, output appended to `logPath`. */
export function spawnRelease(main: string, logPath: string, args: string[]): LoggedProcess {
  return spawnLogged(basename(logPath, '.log'), process.execPath, [main, ...args], logPath);
}
