/** Runs a compiled bench file in its own Node process and collects its JSON lines. */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ChildRun {
  lines: Record<string, unknown>[];
  /** ms from spawn to each line, in order */
  at: number[];
  code: number | null;
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Inside node_modules so that the project's package.json ("type": "module") and dependencies apply;
 * one directory per checkout, since worktrees may share one node_modules.
 */
const COMPILED = `${REPO}node_modules/.cache/zvm-bench-${createHash('sha1').update(REPO).digest('hex').slice(0, 8)}/`;

let compiled = false;

/**
 * Compiles the project (src and bench) with tsc into node_modules/.cache/zvm-bench, once per bench
 * run, and returns the path of `name` there: a process measured for memory and start-up runs as
 * production does, without tsx's loader in it.
 */
export function compiledBenchFile(name: string): string {
  if (!compiled) compile();
  compiled = true;
  const out = `${COMPILED}bench/${name.replace(/\.ts$/, '.js')}`;
  if (!existsSync(out)) throw new Error(`tsc did not produce ${out}`);
  return out;
}

function compile(): void {
  // type errors elsewhere in the tree do not stop tsc from emitting; a missing output does
  const tsc = spawnSync(process.execPath, [`${REPO}node_modules/typescript/bin/tsc`, '-p', `${REPO}tsconfig.json`, '--outDir', COMPILED, '--sourceMap', 'false'], { stdio: 'ignore', cwd: REPO, timeout: 600_000 });
  // a tsc killed by the timeout leaves the previous run's output behind: never measure stale code
  if (tsc.error || tsc.signal) throw new Error(`tsc did not finish (${tsc.error?.message ?? tsc.signal}); not measuring an older build`);
}

/** Spawns `node [nodeArgs] file args` (a compiled file); resolves when it exits or is killed at `timeoutMs`. */
export function runChild(file: string, args: string[], o: { nodeArgs?: string[]; timeoutMs: number; onLine?: (line: Record<string, unknown>, kill: () => void) => void }): Promise<ChildRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const run: ChildRun = { lines: [], at: [], code: null };
    const kill = () => child.kill('SIGTERM');
    const timer = setTimeout(kill, o.timeoutMs);
    let buf = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const text = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        run.lines.push(line);
        run.at.push(performance.now() - started);
        o.onLine?.(line, kill);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      run.code = code;
      resolve(run);
    });
  });
}
