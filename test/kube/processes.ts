/**
 * Child processes for the Kubernetes test environment: started with their output in a log file,
 * stopped with a bounded wait, and killed when the test process exits so that a failed test never
 * leaves an etcd or kube-apiserver behind.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { TimeoutError, ZvmError } from '../../src/errors.js';

export interface LoggedProcess {
  readonly name: string;
  readonly logPath: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Set once the process has exited. */
  exitStatus(): number | string | undefined;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous on purpose: 'exit' handlers cannot wait, and SIGKILL needs no waiting.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** Starts `command args` with stdout and stderr appended to `logPath`. */
export function spawnLogged(name: string, command: string, args: string[], logPath: string): LoggedProcess {
  installExitHook();
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd); // the child holds its own copy of the descriptor
  }
  running.add(child);
  let status: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    const finish = (value: number | string): void => {
      running.delete(child);
      status ??= value;
      resolve(status);
    };
    child.once('exit', (code, signal) => finish(code ?? signal ?? 'unknown'));
    child.once('error', (err) => finish(`spawn error: ${err.message}`));
  });
  return { name, logPath, child, exited, exitStatus: () => status };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(proc: LoggedProcess, graceMs = 10_000): Promise<void> {
  if (proc.exitStatus() !== undefined) return;
  proc.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
  });
  const outcome = await Promise.race([proc.exited, graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

/** The last `maxChars` characters of a process log, for error messages. */
export function tailLog(proc: LoggedProcess, maxChars = 4000): string {
  try {
    const text = readFileSync(proc.logPath, 'utf8');
    return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
  } catch (err) {
    return `(log unreadable: ${(err as Error).message})`;
  }
}

/**
 * `n` distinct free loopback TCP ports from the kernel, held open together until all are found: ports taken one
 * after the other can repeat while the process the first was meant for has not bound it yet (two containers of one
 * pod met on one port). Another process may still take one; callers retry.
 */
export async function freePorts(n: number): Promise<number[]> {
  const opened = await Promise.allSettled(Array.from({ length: n }, () => new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  })));
  const servers = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  // closed whether or not every listen succeeded: a failed one must not leave the others open
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  const failed = opened.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  return ports;
}

/** One free loopback TCP port (freePorts). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

export interface WaitOptions {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Processes whose early exit makes waiting pointless; their logs go into the error. */
  watch: LoggedProcess[];
}

/**
 * Polls `probe` until it returns true, a watched process exits, or `timeoutMs` passes. The error
 * carries the tail of every watched log, so a failed start explains itself.
 */
export async function waitUntil(probe: () => Promise<boolean>, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 250;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const dead = opts.watch.find((p) => p.exitStatus() !== undefined);
    if (dead) {
      throw new ZvmError('UNAVAILABLE', `${dead.name} exited (${String(dead.exitStatus())}) while waiting for ${opts.what}\n${logs(opts.watch)}`);
    }
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err; // not up yet: keep polling until the deadline
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  const last = lastError instanceof Error ? ` (last probe error: ${lastError.message})` : '';
  throw new TimeoutError(`${opts.what} not ready within ${opts.timeoutMs} ms${last}\n${logs(opts.watch)}`, { cause: lastError });
}

function logs(procs: LoggedProcess[]): string {
  return procs.map((p) => `--- ${p.name} log (${p.logPath}) ---\n${tailLog(p)}`).join('\n');
}
