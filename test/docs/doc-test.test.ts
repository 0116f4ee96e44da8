/**
 * The doc test (issue 39): every command and manifest of the README and the user guide (docs/user-guide)
 * runs against standalone, the compiled process `npm start` runs, so the docs cannot rot: a documented
 * command that breaks (a flag renamed, an answer changed, a manifest the schema refuses) fails here.
 * Blocks tagged cluster, setup or outside are listed, not run (see blocks.ts for what each means).
 * The documented ports and state directory are replaced by the test instance's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAIN_JS } from '../../src/cmd/self-command.js';
import { startOperator, stopGracefully, type Operator } from '../integration/standalone/crash-storm-support.js';
import { blocksOf, consoleSteps, docFiles, NOT_RUN, type Block } from './blocks.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const blocks = docFiles(REPO).flatMap(blocksOf).filter((b) => ['sh', 'console', 'yaml'].includes(b.lang));
const where = (b: Block) => `${relative(REPO, b.file)}:${b.line}`;

describe('the documented commands and manifests, run against standalone', () => {
  const work = mkdtempSync(join(tmpdir(), 'zvm-doc-test-'));
  const stateDir = join(work, '.zvm-state');
  let op: Operator | undefined;
  beforeAll(async () => {
    op = await startOperator(stateDir);
  }, 180_000);
  afterAll(async () => {
    if (op) await stopGracefully(op.proc);
    rmSync(work, { recursive: true, force: true });
  });

  /** bash with the documented names pointing at this instance: npx zvm-operator and npm start are the compiled command. */
  function bash(script: string, stdin?: string) {
    const rest = op!.restUrl;
    const admin = op!.adminUrl;
    const text = script.replaceAll('http://127.0.0.1:8888', rest).replaceAll('http://127.0.0.1:8081', admin).replaceAll('.zvm-state', stateDir);
    const prelude = [
      'set -e -o pipefail',
      `zvm-operator() { "${process.execPath}" "${MAIN_JS}" "$@"; }`,
      'npx() { if [ "$1" = zvm-operator ]; then shift; zvm-operator "$@"; else command npx "$@"; fi; }',
      `npm() { if [ "$1" = start ]; then shift; [ "$1" = -- ] && shift; zvm-operator standalone --state-dir "${join(work, 'other-state')}" "$@"; else command npm "$@"; fi; }`,
      // a REST error fails the block (the documented calls all succeed)
      'curl() { command curl --fail-with-body "$@"; }',
    ].join('\n');
    return spawnSync('bash', ['-c', `${prelude}\n${text}`], { cwd: work, input: stdin, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ZVM_SERVER: admin } });
  }

  it('knows every block: run, or tagged with why not', () => {
    const untagged = blocks.filter((b) => b.tag && !(NOT_RUN as readonly string[]).includes(b.tag)).map(where);
    expect(untagged).toEqual([]);
    const notRun = blocks.filter((b) => b.tag).map((b) => `${where(b)} (${b.tag})`);
    console.log(`doc test: ${blocks.length - notRun.length} blocks run, ${notRun.length} not run:\n  ${notRun.join('\n  ')}`);
    expect(blocks.length - notRun.length).toBeGreaterThan(5);
  });

  for (const b of blocks.filter((x) => !x.tag)) {
    it(`runs ${where(b)} (${b.lang})`, () => {
      if (b.lang === 'yaml') {
        const name = /^# (\S+\.ya?ml)\s*$/.exec(b.body.split('\n')[0] ?? '')?.[1];
        if (name) return void writeFileSync(join(work, name), b.body);
        const r = bash('zvm-operator apply -f -', b.body);
        expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
        return;
      }
      if (b.lang === 'console' || b.body.startsWith('$ ')) {
        for (const step of consoleSteps(b.body)) {
          const r = bash(step.command);
          const said = `${r.stdout}${r.stderr}`;
          if (step.output.length === 0) expect({ command: step.command, code: r.status, stderr: r.stderr }).toEqual({ command: step.command, code: 0, stderr: r.stderr });
          for (const line of step.output) expect({ command: step.command, said }).toEqual({ command: step.command, said: expect.stringContaining(line) });
        }
        return;
      }
      const r = bash(b.body);
      expect({ block: where(b), code: r.status, stderr: r.stderr.slice(-2000) }).toEqual({ block: where(b), code: 0, stderr: r.stderr.slice(-2000) });
    }, 180_000);
  }
});
