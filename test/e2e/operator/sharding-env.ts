import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlOk } from '../../kube/kubectl.js';
import type { Manifest } from '../../chart/render.js';
import { installChart, startPod } from './chart-pods.js';
import { applyObjects, spawnCli, waitUntil, type LoggedProcess, type OperatorEnv } from './helpers.js';

/**
 * The sharding e2e setup: one `zvm-operator sim --hosts n` process serving n independent simulated
 * hosts (one SMAPI port each) and recording every request with the caller's address, ZHosts h1..hn
 * pointing at them, and the chart's controller pods as rendered, each connecting from its own loopback
 * address (127.0.0.1x, its "pod IP"), so that the call log says which replica drove which host.
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
    ...ports.map((port, i) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: names[i] }, spec: { smapi: { host: '127.0.0.1', port, credentialsSecret: 'sim-smapi' } } })),
  ]);
  return { sim, names, callLog };
}

/**
 * The chart applied for the sharding runs, no pod started: its controller Deployment, whose Lease timings
 * (LEASE) and 200 ms requeue are chart values.
 */
export async function shardingDeployment(o: OperatorEnv): Promise<Manifest> {
  const s = (ms: number) => `${ms}ms`;
  const install = await installChart(o, {
    start: () => false,
    set: [
      `replicas=3,rest.enabled=false,controller.leaderElection.leaseDuration=${s(LEASE.durationMs)},controller.leaderElection.renewDeadline=${s(LEASE.renewDeadlineMs)},controller.leaderElection.retryPeriod=${s(LEASE.retryMs)}`,
      'controller.extraArgs={--poll-ms=200}',
    ],
  });
  const deployment = install.objects.find((m) => m.kind === 'Deployment');
  if (!deployment) throw new Error('the chart rendered no Deployment');
  return deployment;
}

/** Pod `index` of the Deployment as rendered (chart-pods.ts), its SMAPI connections leaving from `address`. */
export async function startReplica(o: OperatorEnv, deployment: Manifest, index: number, address: string): Promise<Replica> {
  const pod = await startPod(o, deployment, { index, podAddress: address, timeoutMs: 90_000 });
  const controller = pod.containers.controller;
  if (!controller) throw new Error('the chart rendered no controller container');
  const proc = controller.proc;
  let identity = '';
  await waitUntil(async () => {
    identity = /"identity":"([^"]+)"/.exec(readFileSync(proc.logPath, 'utf8'))?.[1] ?? '';
    return identity !== '';
  }, { what: `the identity in the ${pod.name} log`, timeoutMs: 30_000, watch: [proc], intervalMs: 200 });
  return { name: pod.name, proc, address, metricsPort: controller.ports.metrics ?? 0, identity };
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
  return { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name }, spec: { userid, host, vcpus: 1, memory: '512M', powerState: 'On' } };
}

/** The value of an unlabelled gauge in a Prometheus text exposition. */
export async function gauge(replica: Replica, metric: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
  const m = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}
