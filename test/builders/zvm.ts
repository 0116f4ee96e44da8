/**
 * The command users run (`npx zvm-operator …`, i.e. node on dist/cmd/main.js) for tests that start
 * it as a process; src/cmd/self-command.ts resolves it and refuses a stale build.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { promisify } from 'node:util';
import { zvmArgs } from '../../src/cmd/self-command.js';

const execFileAsync = promisify(execFile);

/** Runs `zvm-operator <args>` to completion; rejects (with stdout, stderr, code) on a non-zero exit. */
export function runZvm(args: string[], o: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(process.execPath, zvmArgs(args), { timeout: o.timeoutMs ?? 30_000, env: o.env ?? process.env });
}

/** Runs `zvm-operator <args>` to completion and answers its exit code with its output, whatever the code. */
export async function runZvmExit(args: string[], o: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await runZvm(args, o)) };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Starts `zvm-operator <args>` as a long-running child. */
export function spawnZvm(args: string[], o: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, zvmArgs(args), o);
}

export { zvmArgs };
