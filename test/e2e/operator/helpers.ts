/**
 * The operator e2e tier: a real etcd + kube-apiserver (test/kube/harness.ts) with crds/ applied, and
 * `zvm-operator` subcommands run as real child processes of the compiled build, driven with kubectl.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { ZvmError } from '../../../src/errors.js';
import { spawnZvm } from '../../builders/zvm.js';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { freePort, freePorts, stopProcess, tailLog, waitUntil, type LoggedProcess } from '../../kube/processes.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Bound on anything the operator has to do (process start included). */
export const OPERATOR_BOUND_MS = 60_000;

export interface OperatorEnv {
  env: KubeTestEnv;
  /** admin kubeconfig path */
  kubeconfig: string;
  /** the operator's namespace (Lease, Secrets) and the guests' namespace */
  namespace: string;
}

/** The kinds these tests drive: their CRDs must apply. */
const REQUIRED_CRDS = ['zguests.zvm.dev', 'zhosts.zvm.dev'];

/**
 * Applies crds/ as JSON. kubectl reads YAML 1.1, where the unquoted enum values On/Off of the CRD
 * are booleans; parsed as YAML 1.2 the CRDs are exactly what src/api generates. A CRD of a kind these
 * tests do not use that the apiserver refuses is reported, not fatal: the CRD tests own that check.
 */
async function applyCrds(kubeconfig: string): Promise<string[]> {
  const dir = join(REPO, 'crds');
  const names: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
    const crd = parseYaml(await readFile(join(dir, file), 'utf8')) as { metadata: { name: string } };
    const r = await kubectl(['apply', '-f', '-'], { kubeconfig, input: JSON.stringify(crd) });
    if (r.code === 0) names.push(`crd/${crd.metadata.name}`);
    else if (REQUIRED_CRDS.includes(crd.metadata.name)) throw new ZvmError('INTERNAL', `CRD ${crd.metadata.name} refused: ${r.stderr}`);
    else console.warn(`operator e2e: the apiserver refused CRD ${crd.metadata.name}: ${r.stderr.trim()}`);
  }
  return names;
}

export async function startOperatorEnv(namespace = 'zvm-system'): Promise<OperatorEnv> {
  const env = await startKubeTestEnv();
  const kubeconfig = env.adminKubeconfig;
  try {
    const crds = await applyCrds(kubeconfig);
    await kubectlOk(['wait', '--for=condition=Established', ...crds, '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    await kubectlOk(['create', 'namespace', namespace], { kubeconfig });
    return { env, kubeconfig, namespace };
  } catch (err) {
    await env.stop();
    throw err;
  }
}

/** Applies a manifest file (several documents allowed), namespaced ones into `namespace`. */
export async function applyFile(o: OperatorEnv, path: string, namespace = o.namespace): Promise<string> {
  return kubectlOk(['apply', '-n', namespace, '-f', path], { kubeconfig: o.kubeconfig });
}

/** Applies objects given as JS values (sent as JSON, so no YAML 1.1 surprises). */
export async function applyObjects(o: OperatorEnv, objects: unknown[], namespace = o.namespace): Promise<void> {
  const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
  await kubectlOk(['apply', '-n', namespace, '-f', '-'], { kubeconfig: o.kubeconfig, input });
}

/** The documents of a YAML file, parsed as YAML 1.2. */
export async function readManifests(path: string): Promise<Record<string, unknown>[]> {
  return parseAllDocuments(await readFile(path, 'utf8')).map((d) => d.toJSON() as Record<string, unknown>);
}

export async function jsonpath(o: OperatorEnv, resource: string, path: string, namespace = o.namespace): Promise<string> {
  const r = await kubectl(['get', '-n', namespace, resource, '-o', `jsonpath=${path}`], { kubeconfig: o.kubeconfig });
  return r.code === 0 ? r.stdout : '';
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL'); // a failed test must not leave operators behind
});

/**
 * Runs `zvm-operator <args>` (compiled, as users run it) as a child process, output in `<tempDir>/<name>.log`;
 * `main` runs another build's dist/cmd/main.js instead (an older release, test/e2e/upgrade).
 */
export function spawnCli(o: OperatorEnv, name: string, args: string[], env: Record<string, string> = {}, main?: string): LoggedProcess {
  const logPath = join(o.env.tempDir, `${name}.log`);
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    const options = { stdio: ['ignore', fd, fd] as StdioOptions, env: { ...process.env, LOG_LEVEL: 'debug', ...env }, cwd: REPO };
    child = main ? spawn(process.execPath, [main, ...args], options) : spawnZvm(args, options);
  } finally {
    closeSync(fd);
  }
  children.add(child);
  let status: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    const finish = (value: number | string): void => {
      children.delete(child);
      status ??= value;
      resolve(status);
    };
    child.once('exit', (code, signal) => finish(code ?? signal ?? 'unknown'));
    child.once('error', (err) => finish(`spawn error: ${err.message}`));
  });
  return { name, logPath, child, exited, exitStatus: () => status };
}

/** The first value of `"field":<number>` in a process log (e.g. the sim's smapiPort), once it appears. */
export async function logNumber(proc: LoggedProcess, field: string, timeoutMs = 30_000): Promise<number> {
  let found: number | undefined;
  await waitUntil(async () => {
    const m = new RegExp(`"${field}":(\\d+)`).exec(readFileSync(proc.logPath, 'utf8'));
    found = m ? Number(m[1]) : undefined;
    return found !== undefined;
  }, { what: `${field} in the ${proc.name} log`, timeoutMs, watch: [proc], intervalMs: 100 });
  return found as number;
}

export { freePort, freePorts, stopProcess, tailLog, waitUntil };
export type { LoggedProcess };

/** Polls until probe() holds; the error names what was awaited and carries the processes' logs. */
export async function eventually(what: string, probe: () => Promise<boolean>, watch: LoggedProcess[] = [], timeoutMs = OPERATOR_BOUND_MS): Promise<void> {
  await waitUntil(probe, { what, timeoutMs, watch, intervalMs: 300 });
}

export function unavailable(message: string): ZvmError {
  return new ZvmError('UNAVAILABLE', message);
}
