import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlOk } from '../../kube/kubectl.js';
import { applyObjects, eventually, freePort, spawnCli, waitUntil, type LoggedProcess, type OperatorEnv } from './helpers.js';

/**
 * The sharding e2e setup: one `zvm-operator sim --hosts n` process serving n independent simulated
 * hosts (one SMAPI port each) and recording every request with the caller's address, ZHosts h1..hn
 * pointing at them, and controller replicas that each connect from their own loopback address
 * (127.0.0.1x), so that the call log says which replica drove which host.
 */
// long enough that a loaded 2-core machine does not miss renewals; the bounds asserted scale with them
export const LEASE = { durationMs: 8_000, renewDeadlineMs: 6_000, retryMs: 1_000 };
const GROUP = 'zvm-operator-leader';

export interface SimHosts {
  sim: LoggedProcess;
  names: string[];
  callLog: string;
}

export interface Replica {
  name: string;
  proc: LoggedProcess;
  address: string;
  metricsPort: number;
  identity: string;
}

export interface SimCall {
  at: number;
  peer: string;
  host: number;
  fn: string;
  target: string;
}

export interface HostLease {
  host: string;
  holder: string;
  acquireTime: number;
  transitions: number;
}

/** `latencyMs` per SMAPI call makes a guest's reconcile last several calls' time, so work can be caught in flight. */
export async function startSimHosts(o: OperatorEnv, count: number, latencyMs = 0): Promise<SimHosts> {
  const password = randomBytes(8).toString('hex');
  const callLog = join(o.env.tempDir, 'sim-calls.jsonl');
  const sim = spawnCli(o, 'sim', ['sim', '--port', '0', '--hosts', String(count), '--call-log', callLog, '--userid', 'MAINT', '--password', password, '--latency-ms', String(latencyMs)]);
  let ports: number[] = [];
  await waitUntil(async () => {
    const m = /"smapiPorts":\[([\d,]+)\]/.exec(readFileSync(sim.logPath, 'utf8'));
    ports = m ? m[1].split(',').map(Number) : [];
    return ports.length === count;
  }, { what: 'smapiPorts in the sim log', timeoutMs: 60_000, watch: [sim], intervalMs: 200 });
  const names = ports.map((_p, i) => `h${i + 1}`);
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password } },
    ...ports.map((port, i) => ({ apiVersion: 'zvm.dev/v1alpha1', kind: 'ZHost', metadata: { name: names[i] }, spec: { smapi: { host: '127.0.0.1', port, credentialsSecret: 'sim-smapi' } } })),
  ]);
  return { sim, names, callLog };
}

export async function startReplica(o: OperatorEnv, name: string, address: string): Promise<Replica> {
  const probePort = await freePort();
  const metricsPort = await freePort();
  const proc = spawnCli(o, name, [
    'controller', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace,
    '--health-probe-bind-address', `127.0.0.1:${probePort}`, '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--poll-ms', '200',
    '--leader-elect-lease-duration', `${LEASE.durationMs / 1000}s`, '--leader-elect-renew-deadline', `${LEASE.renewDeadlineMs / 1000}s`,
    '--leader-elect-retry-period', `${LEASE.retryMs}ms`, '--smapi-local-address', address,
  ], { POD_NAME: name });
  await eventually(`${name} to be ready`, async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok === true, [proc], 90_000);
  const identity = /"identity":"([^"]+)"/.exec(readFileSync(proc.logPath, 'utf8'))?.[1] ?? '';
  return { name, proc, address, metricsPort, identity };
}

interface LeaseJson {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { holderIdentity?: string; acquireTime?: string; leaseTransitions?: number };
}

/** The host Leases of the deployment, by host. */
export async function hostLeases(o: OperatorEnv): Promise<Map<string, HostLease>> {
  const out = await kubectlOk(['get', 'leases', '-n', o.namespace, '-l', `zvm.dev/shard-group=${GROUP},zvm.dev/lease-role=host`, '-o', 'json'], { kubeconfig: o.kubeconfig });
  const items = (JSON.parse(out) as { items: LeaseJson[] }).items;
  return new Map(items.map((l) => {
    const host = l.metadata.annotations?.['zvm.dev/lease-subject'] ?? '';
    return [host, { host, holder: l.spec.holderIdentity ?? '', acquireTime: Date.parse(l.spec.acquireTime ?? ''), transitions: l.spec.leaseTransitions ?? 0 }] as const;
  }));
}

export function readCalls(hosts: SimHosts): SimCall[] {
  let text: string;
  try {
    text = readFileSync(hosts.callLog, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as SimCall);
}

/** The guest of a test on host `host`, powered on. */
export function aGuestOn(name: string, userid: string, host: string): Record<string, unknown> {
  return { apiVersion: 'zvm.dev/v1alpha1', kind: 'ZGuest', metadata: { name }, spec: { userid, host, vcpus: 1, memory: '512M', powerState: 'On' } };
}

/** The value of an unlabelled gauge in a Prometheus text exposition. */
export async function gauge(replica: Replica, metric: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
  const m = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}
