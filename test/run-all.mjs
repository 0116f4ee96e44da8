#!/usr/bin/env node
// The README's test command (`npm test`), alone on a fresh machine: every set-up step first
// (test/setup.sh: Debian packages, the Go-built toolchains, the project's Node major), then itself again on
// that Node when this one is another, `npm ci` when node_modules is missing or older than the lockfile,
// then build dist/ (the tests start the compiled command, never stale JavaScript), type-check and lint,
// and every Jest tier in one run, ending with the plain summary line `N passed, N failed` that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

/** The failure of a set-up step still ends with the summary line (one failure), so CI reads the cause. */
function setupFailed(what) {
  console.log(`set-up failed: ${what}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

if (!process.env.ZVM_SETUP_DONE) {
  const setup = spawnSync('bash', ['test/setup.sh'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (setup.status !== 0) setupFailed('test/setup.sh (see above)');
  const path = setup.stdout.trim().split('\n').at(-1);
  const node = join(path.split(delimiter)[0], 'node');
  const env = { ZVM_SETUP_DONE: '1', PATH: `${path}${delimiter}${process.env.PATH}` };
  if (realpathSync(node) !== realpathSync(process.execPath)) {
    process.exit(run(node, [process.argv[1], ...process.argv.slice(2)], env));
  }
  process.env.PATH = env.PATH;
}

const lock = 'node_modules/.package-lock.json';
if (!existsSync(lock) || statSync(lock).mtimeMs < statSync('package-lock.json').mtimeMs) {
  if (run('npm', ['ci', '--no-audit', '--no-fund']) !== 0) setupFailed('npm ci');
}

const extra = process.argv.slice(2);
// tsc emits despite type errors (the type-check below reports them); any other failure counts here
let stepsFailed = run('npm', ['run', 'build']) === 0 ? 0 : 1;
if (!process.env.ZVM_SKIP_LINT) {
  stepsFailed += run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']) === 0 ? 0 : 1;
  stepsFailed += run('npx', ['eslint', 'src', 'test']) === 0 ? 0 : 1;
}

// --forceExit: a test that fails mid-way can leave a server open; the run must still end with its summary
const out = join(mkdtempSync(join(tmpdir(), 'zvm-jest-')), 'results.json');
const jestStatus = run(process.execPath, [
  '--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--runInBand', '--forceExit', '--json', `--outputFile=${out}`, ...extra,
]);

let passed = 0;
let failed = stepsFailed;
try {
  const results = JSON.parse(readFileSync(out, 'utf8'));
  passed += results.numPassedTests;
  failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
} catch {
  failed += 1; // Jest wrote no results: count the run itself as a failure.
}
if (stepsFailed) console.log(`build/type-check/lint: ${stepsFailed} step(s) failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || jestStatus !== 0 ? 1 : 0);
