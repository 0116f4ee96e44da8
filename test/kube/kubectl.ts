/**
 * Runs kubectl (from PATH) against a test kubeconfig. Never throws on a non-zero exit: tests
 * assert on the exit code and output, e.g. that RBAC says "Forbidden".
 */
import { spawn } from 'node:child_process';
import { ZvmError } from '../../src/errors.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  kubeconfig: string;
  /** Written to kubectl's stdin (e.g. a manifest for `apply -f -`). */
  input?: string;
  /** Kills kubectl after this long; default 60 s. */
  timeoutMs?: number;
}

export function kubectl(args: string[], opts: KubectlOptions): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', opts.kubeconfig, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.once('error', (err) => reject(new ZvmError('UNAVAILABLE', `kubectl could not run: ${err.message}`, { cause: err })));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** Like kubectl() but a non-zero exit is an error carrying kubectl's stderr. */
export async function kubectlOk(args: string[], opts: KubectlOptions): Promise<string> {
  const r = await kubectl(args, opts);
  if (r.code !== 0) {
    throw new ZvmError('INTERNAL', `kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}
