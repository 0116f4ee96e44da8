/**
 * A real Kubernetes control plane for e2e tests: etcd + kube-apiserver on loopback ports, built
 * once by test/kube/toolchain.sh (docs/architecture.md §5), with a throw-away PKI and RBAC on.
 *
 * What a bare apiserver does NOT do, because no kube-controller-manager (and no scheduler or
 * kubelet) runs:
 * - Namespaces exist only if created. The apiserver itself creates default, kube-system,
 *   kube-public and kube-node-lease; the harness still creates `default` if it is missing.
 *   Deleting a namespace leaves it Terminating forever (the namespace controller never finalizes).
 * - No garbage collection: ownerReferences do not cascade, and foreground deletion never completes.
 * - Service accounts get no token Secret and no `default` ServiceAccount appears. Create SAs
 *   yourself and mint tokens with the TokenRequest API (`kubectl create token <sa>`), which works
 *   because the SA signing key is configured. The ServiceAccount admission plugin is disabled so
 *   that Pods can be created without a `default` SA (they are never scheduled or run).
 * - Deployments, Jobs etc. are stored but never produce Pods; Pods stay Pending.
 * - Finalizers are honoured by the apiserver itself: an object with finalizers stays (with a
 *   deletionTimestamp) until something removes them — exactly what an operator test wants.
 *
 * Identities (client certificates, CA-signed):
 * - admin: user `kube-admin`, group `system:masters` (bypasses RBAC);
 * - operator: user `zvm-operator-test`, group `zvm-operators` (no permissions until a test binds some).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZvmError } from '../../src/errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { kubectl, kubectlOk } from './kubectl.js';
import { createTestPki } from './pki.js';
import type { ClientIdentity, TestPki } from './pki.js';
import { freePort, freePorts, spawnLogged, stopProcess, tailLog, waitUntil } from './processes.js';
import type { LoggedProcess } from './processes.js';
import { resolveKubeBinDir } from './toolchain.js';

export interface KubeTestEnvOptions {
  /** Where kube-apiserver and etcd are; default: $ZVM_KUBE_BIN_DIR or the toolchain.sh cache. */
  binDir?: string;
  /** Bound on each readiness wait (etcd, apiserver); default 90 s. */
  readyTimeoutMs?: number;
  /** Appended to the kube-apiserver command line (e.g. `--feature-gates=…`). */
  extraApiserverArgs?: string[];
  /** Keep the temp dir (certs, etcd data, logs) after stop(), for debugging. Also: ZVM_KUBE_KEEP=1. */
  keepTempDir?: boolean;
}

export interface KubeTestEnv {
  /** https://127.0.0.1:<port> */
  server: string;
  /** etcd's client URL (plain HTTP on loopback): what the apiserver stored, read under its key prefix */
  etcdUrl: string;
  binDir: string;
  /** Kubeconfig with contexts `admin` (current) and `operator`. */
  kubeconfigPath: string;
  /** Kubeconfig with only the admin identity (system:masters). */
  adminKubeconfig: string;
  /** Kubeconfig with only the operator identity (RBAC applies). */
  operatorKubeconfig: string;
  operatorIdentity: ClientIdentity;
  /** Holds certs, etcd data and the process logs (etcd.log, kube-apiserver.log). */
  tempDir: string;
  /** The running kube-apiserver's process id (changes on restartApiserver). */
  apiserverPid(): number | undefined;
  /** Stops kube-apiserver and starts it again on the same port with the same etcd; waits for /readyz. */
  restartApiserver(): Promise<void>;
  /** Stops both processes and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

export const ADMIN_IDENTITY: ClientIdentity = { user: 'kube-admin', groups: ['system:masters'] };
export const OPERATOR_IDENTITY: ClientIdentity = { user: 'zvm-operator-test', groups: ['zvm-operators'] };
const START_ATTEMPTS = 3;

export async function startKubeTestEnv(opts: KubeTestEnvOptions = {}): Promise<KubeTestEnv> {
  const binDir = await resolveKubeBinDir(opts.binDir);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 90_000;
  const tempDir = await mkdtemp(join(tmpdir(), 'zvm-kube-'));
  const keep = opts.keepTempDir ?? process.env.ZVM_KUBE_KEEP === '1';
  let etcd: LoggedProcess | undefined;
  let apiserver: LoggedProcess | undefined;
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (apiserver) await stopProcess(apiserver);
    if (etcd) await stopProcess(etcd);
    if (!keep) await rm(tempDir, { recursive: true, force: true });
  };

  try {
    const pki = await createTestPki(tempDir, { admin: ADMIN_IDENTITY, operator: OPERATOR_IDENTITY });
    const etcdStarted = await startEtcd(binDir, tempDir, readyTimeoutMs);
    etcd = etcdStarted.proc;
    const etcdUrl = etcdStarted.url;
    const started = await startApiserver({ binDir, tempDir, pki, etcdUrl, readyTimeoutMs, extra: opts.extraApiserverArgs ?? [], etcd });
    apiserver = started.proc;
    const { port, args } = started;
    const server = `https://127.0.0.1:${port}`;
    const kubeconfigPath = join(tempDir, 'kubeconfig');
    const adminKubeconfig = join(tempDir, 'admin.kubeconfig');
    const operatorKubeconfig = join(tempDir, 'operator.kubeconfig');
    const admin = { name: 'admin', credentials: pki.clients.admin };
    const operator = { name: 'operator', credentials: pki.clients.operator };
    await writeKubeconfig(kubeconfigPath, server, pki.caCert, [admin, operator]);
    await writeKubeconfig(adminKubeconfig, server, pki.caCert, [admin]);
    await writeKubeconfig(operatorKubeconfig, server, pki.caCert, [operator]);
    await ensureDefaultNamespace(adminKubeconfig);

    const restartApiserver = async (): Promise<void> => {
      if (stopped || !apiserver || !etcd) throw new ZvmError('UNAVAILABLE', 'kube test env is stopped');
      await stopProcess(apiserver);
      apiserver = spawnLogged('kube-apiserver', join(binDir, 'kube-apiserver'), args, join(tempDir, 'kube-apiserver.log'));
      await waitForReadyz(apiserver, etcd, port, pki, readyTimeoutMs);
    };
    return {
      server, etcdUrl, binDir, kubeconfigPath, adminKubeconfig, operatorKubeconfig,
      operatorIdentity: OPERATOR_IDENTITY, tempDir, restartApiserver, stop,
      apiserverPid: () => apiserver?.child.pid,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function startEtcd(binDir: string, tempDir: string, readyTimeoutMs: number): Promise<{ proc: LoggedProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const [clientPort, peerPort] = await freePorts(2);
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const proc = spawnLogged('etcd', join(binDir, 'etcd'), [
      '--name', 'zvm-test', '--data-dir', join(tempDir, `etcd-data-${attempt}`),
      '--listen-client-urls', client, '--advertise-client-urls', client,
      '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `zvm-test=${peer}`, '--initial-cluster-state', 'new',
      '--unsafe-no-fsync', '--log-level', 'warn',
    ], join(tempDir, 'etcd.log'));
    try {
      await waitUntil(() => httpOk(`${client}/health`), { what: 'etcd /health', timeoutMs: readyTimeoutMs, watch: [proc] });
      return { proc, url: client };
    } catch (err) {
      await stopProcess(proc);
      if (attempt >= START_ATTEMPTS || !portClash(proc)) throw err;
    }
  }
}

interface ApiserverStart {
  binDir: string;
  tempDir: string;
  pki: TestPki;
  etcdUrl: string;
  readyTimeoutMs: number;
  extra: string[];
  etcd: LoggedProcess;
}

async function startApiserver(s: ApiserverStart): Promise<{ proc: LoggedProcess; port: number; args: string[] }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = apiserverArgs(s, port);
    const proc = spawnLogged('kube-apiserver', join(s.binDir, 'kube-apiserver'), args, join(s.tempDir, 'kube-apiserver.log'));
    try {
      await waitForReadyz(proc, s.etcd, port, s.pki, s.readyTimeoutMs);
      return { proc, port, args };
    } catch (err) {
      await stopProcess(proc);
      if (attempt >= START_ATTEMPTS || !portClash(proc)) throw err;
    }
  }
}

function apiserverArgs(s: ApiserverStart, port: number): string[] {
  return [
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${port}`,
    `--cert-dir=${join(s.tempDir, 'apiserver-certs')}`,
    `--etcd-servers=${s.etcdUrl}`,
    `--client-ca-file=${s.pki.caCert}`,
    `--tls-cert-file=${s.pki.serving.cert}`, `--tls-private-key-file=${s.pki.serving.key}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${s.pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${s.pki.serviceAccountKey}`,
    '--service-cluster-ip-range=10.96.0.0/24',
    '--authorization-mode=RBAC',
    // Needs the `default` ServiceAccount, which only kube-controller-manager would create.
    '--disable-admission-plugins=ServiceAccount',
    '--profiling=false',
    ...s.extra,
  ];
}

async function waitForReadyz(proc: LoggedProcess, etcd: LoggedProcess, port: number, pki: TestPki, timeoutMs: number): Promise<void> {
  const tls = {
    ca: readFileSync(pki.caCert),
    cert: readFileSync(pki.clients.admin.cert),
    key: readFileSync(pki.clients.admin.key),
  };
  await waitUntil(() => httpsOk(port, '/readyz', tls), {
    what: `kube-apiserver https://127.0.0.1:${port}/readyz`, timeoutMs, intervalMs: 500, watch: [proc, etcd],
  });
}

async function ensureDefaultNamespace(kubeconfig: string): Promise<void> {
  const found = await kubectl(['get', 'namespace', 'default', '-o', 'name'], { kubeconfig });
  if (found.code === 0) return;
  await kubectlOk(['create', 'namespace', 'default'], { kubeconfig });
}

function portClash(proc: LoggedProcess): boolean {
  return /address already in use/i.test(tailLog(proc, 20_000));
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy(new ZvmError('TIMEOUT', `GET ${url} timed out`)));
    req.once('error', reject);
  });
}

function httpsOk(port: number, path: string, tls: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: 'GET', timeout: 5_000, ...tls }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy(new ZvmError('TIMEOUT', `GET ${path} timed out`)));
    req.once('error', reject);
    req.end();
  });
}
