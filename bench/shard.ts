/**
 * `npm run bench -- --only shard` (issue 15): H simulated hosts × G guests on a real kube-apiserver,
 * driven by R = 1, 2, 4 `zvm-operator controller` processes sharing the hosts on Leases. Per R: time to
 * all Ready ÷ the physical bound (hosts work in parallel; a host serves `concurrency` calls at a time,
 * each taking the model latency), RSS per replica, CPU-seconds per reconciled guest, and (R ≥ 2) the
 * failover seconds after one replica is SIGKILLed. Then a small model for 50 hosts × 2000 guests.
 * Sizes are flags: --shard-hosts, --shard-guests (per host), --shard-replicas 1,2,4.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZGuest } from '../src/api/index.js';
import { loadKubeconfig } from '../src/cmd/kube-common.js';
import { createKubeStore } from '../src/store/kube/index.js';
import type { StateStore } from '../src/store/port.js';
import { applyObjects, freePort, spawnCli, startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv } from '../test/e2e/operator/helpers.js';
import { hostLeases } from '../test/e2e/operator/sharding-env.js';
import { perObjectRequests, requestDelta, settledRequests } from '../test/kube/apiserver-requests.js';
import { BENCH_AUTH, startBenchHost, type BenchHost } from './lib/bench-host.js';
import type { Figure } from './lib/figures.js';

export interface ShardBenchOptions {
  hosts: number;
  guestsPerHost: number;
  replicas: number[];
  latencyMs: number;
  concurrency: number;
  deadline: number;
  /** write each replica's V8 CPU profile here (node --cpu-prof, on exit); none when absent */
  cpuProfDir?: string;
}

interface Replica {
  proc: LoggedProcess;
  identity: string;
}

interface RunResult {
  replicas: number;
  readySeconds: number;
  boundSeconds: number;
  rssMb: number[];
  baselineMb: number[];
  cpuSeconds: number;
  failoverSeconds?: number;
  reconciled: number;
  /** apiserver requests about ZGuests and Events (per-object verbs), the bench's creates left out */
  requests: number;
  requestsByVerb: Record<string, number>;
}

const LEASE = { duration: '6s', renew: '4s', retry: '1s' };
const TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/**
 * Each replica's RSS once the work is done: the lowest of samples over 30 s. Right after a burst the heap
 * still holds garbage that V8 gives back only when allocation stops, and how much differs per replica.
 */
async function settledRss(replicas: Replica[], windowMs = 30_000, everyMs = 5000): Promise<number[]> {
  const lowest = replicas.map(() => Infinity);
  for (let t = 0; t <= windowMs; t += everyMs) {
    replicas.forEach((r, i) => { lowest[i] = Math.min(lowest[i], rssBytes(r.proc.child.pid ?? 0)); });
    if (t < windowMs) await sleep(everyMs);
  }
  return lowest;
}

async function until(what: string, probe: () => Promise<boolean>, deadline: number, everyMs = 1000): Promise<void> {
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`bench shard: gave up waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function startReplica(o: OperatorEnv, name: string, cpuProfDir?: string): Promise<Replica> {
  const probePort = await freePort();
  const proc = spawnCli(o, name, [
    'controller', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace, '--health-probe-bind-address', `127.0.0.1:${probePort}`,
    '--metrics-bind-address', '0', '--poll-ms', '500', '--concurrency', '16',
    '--leader-elect-lease-duration', LEASE.duration, '--leader-elect-renew-deadline', LEASE.renew, '--leader-elect-retry-period', LEASE.retry,
  ], { POD_NAME: name, LOG_LEVEL: 'info', ...(cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } : {}) });
  await until(`${name} ready`, async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok === true, Date.now() + 120_000, 500);
  const identity = /"identity":"([^"]+)"/.exec(readFileSync(proc.logPath, 'utf8'))?.[1] ?? '';
  return { proc, identity };
}

async function countReady(store: StateStore): Promise<number> {
  const { items } = await store.list<ZGuest>('ZGuest', { namespace: 'zvm-system' });
  return items.filter((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

/** Creates the guests through the API, `parallel` requests at a time. */
async function createGuests(store: StateStore, hosts: number, perHost: number, parallel = 16): Promise<void> {
  const specs: ZGuest[] = [];
  for (let h = 0; h < hosts; h += 1) {
    for (let g = 0; g < perHost; g += 1) {
      specs.push({ apiVersion: 'zvm.dev/v1alpha1', kind: 'ZGuest', metadata: { name: `b${h + 1}-${g}`, namespace: 'zvm-system' }, spec: { userid: `B${h + 1}G${g}`.slice(0, 8), host: `h${h + 1}`, vcpus: 1, memory: '512M', powerState: 'On' } } as ZGuest);
    }
  }
  for (let i = 0; i < specs.length; i += parallel) await Promise.all(specs.slice(i, i + parallel).map((s) => store.create(s)));
}

async function runOnce(o: ShardBenchOptions, replicaCount: number): Promise<RunResult> {
  const env = await startOperatorEnv();
  const hosts: BenchHost[] = [];
  const replicas: Replica[] = [];
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.kubeconfig) });
  try {
    for (let i = 0; i < o.hosts; i += 1) hosts.push(await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency }));
    const password = BENCH_AUTH.password;
    await applyObjects(env, [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-smapi' }, stringData: { userid: BENCH_AUTH.userid, password } },
      ...hosts.map((h, i) => ({ apiVersion: 'zvm.dev/v1alpha1', kind: 'ZHost', metadata: { name: `h${i + 1}` }, spec: { smapi: { host: '127.0.0.1', port: h.port, credentialsSecret: 'bench-smapi', concurrency: Math.ceil(o.concurrency * 1.5) } } })),
    ]);
    for (let i = 0; i < replicaCount; i += 1) replicas.push(await startReplica(env, `bench-r${i + 1}-${randomBytes(2).toString('hex')}`, o.cpuProfDir));
    await until('every host held', async () => [...(await hostLeases(env)).values()].filter((l) => l.holder).length === o.hosts, o.deadline);
    await sleep(2000);
    const baseline = replicas.map((r) => rssBytes(r.proc.child.pid ?? 0));
    const cpu0 = replicas.map((r) => cpuSeconds(r.proc.child.pid ?? 0));
    for (const h of hosts) h.reset();

    const requests0 = await perObjectRequests(env.kubeconfig);
    const t0 = performance.now();
    const total = o.hosts * o.guestsPerHost;
    await createGuests(store, o.hosts, o.guestsPerHost);
    await until(`${total} guests Ready`, async () => (await countReady(store)) === total, o.deadline, 2000);
    const readySeconds = (performance.now() - t0) / 1000;
    const cpuSecondsUsed = replicas.reduce((sum, r, i) => sum + cpuSeconds(r.proc.child.pid ?? 0) - cpu0[i], 0);
    const requestsByVerb = requestDelta(requests0, await settledRequests(env.kubeconfig));
    const requests = Object.values(requestsByVerb).reduce((a, b) => a + b, 0) - total;
    // physical bound: hosts in parallel; the busiest host needs calls × latency ÷ concurrency
    const boundSeconds = Math.max(...hosts.map((h) => h.total())) * (o.latencyMs / 1000) / o.concurrency;
    const rss = await settledRss(replicas);
    const failoverSeconds = replicaCount >= 2 ? await failover(env, replicas[0], o.deadline) : undefined;
    const mb = (b: number): number => Math.round((b / 1048576) * 10) / 10;
    return { replicas: replicaCount, readySeconds, boundSeconds, rssMb: rss.map(mb), baselineMb: baseline.map(mb), cpuSeconds: cpuSecondsUsed, failoverSeconds, reconciled: total, requests, requestsByVerb };
  } finally {
    for (const r of replicas) await stopProcess(r.proc);
    await store.close();
    for (const h of hosts) await h.close();
    await env.env.stop();
  }
}

/** SIGKILLs a replica; seconds until every host it held has a new holder (the Leases' acquireTime). */
async function failover(env: OperatorEnv, victim: Replica, deadline: number): Promise<number> {
  const theirs = [...(await hostLeases(env)).values()].filter((l) => l.holder === victim.identity).map((l) => l.host);
  const killedAt = Date.now();
  victim.proc.child.kill('SIGKILL');
  await victim.proc.exited;
  let taken = killedAt;
  await until('the victim\'s hosts taken over', async () => {
    const leases = await hostLeases(env);
    const moved = theirs.map((h) => leases.get(h)).filter((l) => l && l.holder && l.holder !== victim.identity);
    if (moved.length < theirs.length) return false;
    taken = Math.max(...moved.map((l) => l!.acquireTime));
    return true;
  }, deadline, 250);
  return (taken - killedAt) / 1000;
}

/** Scales the measured figures to 50 hosts × 2000 guests; every assumption is printed with it. */
function model(runs: RunResult[], o: ShardBenchOptions): Figure[] {
  if (runs.length === 0) return [];
  const best = runs.reduce((a, b) => (b.replicas > a.replicas ? b : a));
  const cpuPerGuest = best.cpuSeconds / best.reconciled;
  const callsBoundPerGuest = best.boundSeconds / o.guestsPerHost; // seconds of host time per guest on its host
  const hosts = 50;
  const perHost = 2000;
  const physical = perHost * callsBoundPerGuest;
  const cpuTotal = hosts * perHost * cpuPerGuest;
  const baseline = best.baselineMb.reduce((a, b) => a + b, 0) / best.baselineMb.length;
  const perGuestMb = best.rssMb.reduce((sum, v, i) => sum + Math.max(0, v - best.baselineMb[i]), 0) / best.reconciled;
  const assumptions = `assumes: the measured SMAPI calls per guest, latency ${o.latencyMs} ms × concurrency ${o.concurrency} per host, hosts in parallel; `
    + `${cpuPerGuest.toFixed(3)} CPU-s per guest (measured with ${best.replicas} replica(s) on this machine, load average ${loadavg()[0].toFixed(1)}); `
    + `one core per replica; the apiserver and etcd keep up (not modelled); memory = baseline ${baseline.toFixed(0)} MB + ${(perGuestMb * 1024).toFixed(1)} kB per held guest; `
    + 'time to all Ready = max(physical bound, CPU-seconds ÷ replicas)';
  const perReplicas = [4, 16, 50].flatMap((r): Figure[] => [
    { id: `shard.model.r${r}.ready`, name: `model 50×2000, ${r} replicas: time to all Ready`, value: Math.max(physical, cpuTotal / r), unit: 's' },
    { id: `shard.model.r${r}.rss`, name: `model 50×2000, ${r} replicas: RSS per replica`, value: baseline + (perGuestMb * hosts * perHost) / r, unit: 'MB' },
  ]);
  return [
    { id: 'shard.model.physical', name: 'model 50×2000: physical bound (hosts in parallel)', value: physical, unit: 's', detail: assumptions },
    { id: 'shard.model.cpu', name: 'model 50×2000: CPU-seconds to reconcile every guest', value: cpuTotal, unit: 'CPU-s' },
    ...perReplicas,
  ];
}

export async function runShard(o: ShardBenchOptions): Promise<Figure[]> {
  const figures: Figure[] = [];
  const runs: RunResult[] = [];
  for (const r of o.replicas) {
    let run: RunResult;
    try {
      run = await runOnce(o, r);
    } catch (err) {
      // the runs already measured still count: a full-size run takes long on a small machine
      figures.push({ id: `shard.r${r}.error`, name: `${o.hosts}×${o.guestsPerHost}, ${r} replica(s): failed`, value: null, unit: '', detail: String((err as Error).message) });
      break;
    }
    runs.push(run);
    const runFigures = figuresOf(run, o);
    for (const f of runFigures) process.stderr.write(`  ${f.name}: ${f.value === null ? '-' : f.value.toFixed(3)} ${f.unit}${f.detail ? ` (${f.detail})` : ''}\n`);
    figures.push(...runFigures);
    if (Date.now() > o.deadline) break;
  }
  return [...figures, ...shareOfSingle(runs), ...model(runs, o)];
}

/**
 * The issue's reading of "memory proportional to its share": each replica's RSS above its baseline against
 * what one replica alone needed above its baseline, divided by the replica count.
 */
function shareOfSingle(runs: RunResult[]): Figure[] {
  const single = runs.find((r) => r.replicas === 1);
  if (!single) return [];
  const alone = single.rssMb[0] - single.baselineMb[0];
  return runs.filter((r) => r.replicas > 1 && alone > 0).map((run): Figure => {
    const most = Math.max(...run.rssMb.map((v, i) => v - run.baselineMb[i]));
    return {
      id: `shard.r${run.replicas}.rss-vs-single`, name: `${run.replicas} replicas: max replica RSS above baseline ÷ (1 replica's ÷ ${run.replicas})`,
      value: most / (alone / run.replicas), unit: '×', target: { op: '<=', value: 1.5 }, detail: `1 replica: ${alone.toFixed(0)} MB above its baseline`,
    };
  });
}

function figuresOf(run: RunResult, o: ShardBenchOptions): Figure[] {
  const r = run.replicas;
  const size = `${o.hosts}×${o.guestsPerHost}, ${r} replica${r > 1 ? 's' : ''}`;
  const extra = run.rssMb.map((v, i) => v - run.baselineMb[i]);
  const share = extra.reduce((a, b) => a + b, 0) / r;
  const figures: Figure[] = [
    { id: `shard.r${r}.ready`, name: `${size}: time to all Ready`, value: run.readySeconds, unit: 's', detail: `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores (shared machine)` },
    { id: `shard.r${r}.ratio`, name: `${size}: time to all Ready ÷ physical bound`, value: run.readySeconds / run.boundSeconds, unit: '×', detail: `physical bound ${run.boundSeconds.toFixed(1)} s` },
    { id: `shard.r${r}.rss`, name: `${size}: RSS per replica (max)`, value: Math.max(...run.rssMb), unit: 'MB', detail: `replicas ${run.rssMb.join(', ')} MB; before the guests ${run.baselineMb.join(', ')} MB` },
    { id: `shard.r${r}.cpu`, name: `${size}: CPU-seconds per reconciled guest`, value: run.cpuSeconds / run.reconciled, unit: 'CPU-s' },
    {
      id: `shard.r${r}.requests`, name: `${size}: apiserver requests per guest to Ready`, value: run.requests / run.reconciled, unit: 'req',
      target: { op: '<=', value: 5 }, detail: `ZGuest and Event requests other than lists and watches, less the bench's creates: ${JSON.stringify(run.requestsByVerb)}`,
    },
  ];
  if (r > 1) figures.push({ id: `shard.r${r}.rss-balance`, name: `${size}: max replica RSS above baseline ÷ (total ÷ ${r})`, value: share > 0 ? Math.max(...extra) / share : null, unit: '×', target: { op: '<=', value: 1.5 } });
  if (run.failoverSeconds !== undefined) figures.push({ id: `shard.r${r}.failover`, name: `${size}: failover after SIGKILL (lease ${LEASE.duration})`, value: run.failoverSeconds, unit: 's', target: { op: '<=', value: 6 + 5 } });
  return figures;
}
