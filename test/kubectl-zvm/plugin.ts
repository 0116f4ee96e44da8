/**
 * `kubectl zvm` exactly as installed: the compiled dist/cmd/main.js started under the name
 * kubectl-zvm (a symlink, as `npm install -g` makes one), so the program dispatches on its name.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zvmArgs } from '../../src/cmd/self-command.js';

let binDir: string | undefined;

/** A directory holding kubectl-zvm and kubectl_complete-zvm, links to the compiled program. */
export function pluginBinDir(): string {
  if (binDir) return binDir;
  const main = zvmArgs([]).at(-1)!; // refuses a missing or stale build
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-zvm-bin-'));
  for (const name of ['kubectl-zvm', 'kubectl_complete-zvm']) symlinkSync(main, join(dir, name));
  return (binDir = dir);
}

export interface PluginResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kubectl-zvm <args>` to its end (bounded). */
export function runPlugin(args: string[], opts: { timeoutMs?: number; name?: string; env?: Record<string, string> } = {}): Promise<PluginResult> {
  const bin = join(pluginBinDir(), opts.name ?? 'kubectl-zvm');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...opts.env } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Starts a long-running verb (console --follow); its stdout accumulates in `output()`. */
export function spawnPlugin(args: string[]): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, [join(pluginBinDir(), 'kubectl-zvm'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => void (out += d.toString()));
  return { child, output: () => out };
}

/** Polls until probe() holds, bounded. */
export async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
