/** Runs a bench TypeScript file in its own Node process (through tsx) and collects its JSON lines. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildRun {
  lines: Record<string, unknown>[];
  /** ms from spawn to each line, in order */
  at: number[];
  code: number | null;
}

export function benchFile(name: string): string {
  return fileURLToPath(new URL(`../${name}`, import.meta.url));
}

/** Spawns `node [nodeArgs] --import tsx file args`; resolves when it exits or is killed at `timeoutMs`. */
export function runChild(file: string, args: string[], o: { nodeArgs?: string[]; timeoutMs: number; onLine?: (line: Record<string, unknown>, kill: () => void) => void }): Promise<ChildRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), '--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
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
