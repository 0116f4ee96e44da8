#!/usr/bin/env node
// The README's test command (`npm test`): build dist/ (the tests start the compiled command, never
// stale JavaScript), type-check and lint, then every Jest tier in one run, ending with the plain
// summary line `N passed, N failed` that CI reads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
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
