/**
 * `npm run bench -- --only shard` (issue 15): H simulated hosts × G guests on a real kube-apiserver,
 * driven by R = 1, 2, 4 `zvm-operator controller` processes sharing the hosts on Leases. Per R: time to
 * all Ready ÷ the physical bound (hosts work in parallel; a host serves `concurrency` calls at a time,
 * each taking the model latency; the calls are the work's, see workCalls), RSS per replica, CPU-seconds
 * per reconciled guest, apiserver requests per guest, (R ≥ 2) the time against one replica's and the
 * failover seconds after one replica is SIGKILLed. Then a small model for 50 hosts × 2000 guests.
 * Sizes are flags: --shard-hosts, --shard-guests (per host), --shard-replicas 1,2,4.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZGuest } from '../src/api/index.js';
import { loadKubeconfig } from '../src/cmd/kube-common.js';
import { createInformer } from '../src/runtime/informer.js';
import { createKubeStore } from '../src/store/kube/index.js';
import type { StateStore } from '../src/store/port.js';
import { applyObjects, freePorts, spawnCli, startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv } from '../test/e2e/operator/helpers.js';
import { hostLeases } from '../test/e2e/operator/sharding-env.js';
import { perObjectRequests, requestDelta, settledRequests } from '../test/kube/apiserver-requests.js';
import { BENCH_AUTH, startBenchHost, type BenchHost } from './lib/bench-host.js';
import type { Figure } from './lib/figures.js';
import { inspectorUrl, liveHeapBytes } from './lib/inspector.js';
import { childrenNamed, cpuSeconds, machineBusySeconds, rssBytes } from './lib/proc-stats.js';

export interface ShardBenchOptions {
  hosts: number;
  guestsPerHost: number;
  replicas: number[];
  latencyMs: number;
  concurrency: number;
  deadline: number;
  /** write each replica's V8 CPU profile here (node --cpu-prof, on exit); none when absent */
  cpuProfDir?: string;
  /** write each replica's V8 heap snapshot here once the work is done (SIGUSR2); none when absent */
  heapSnapshotDir?: string;
}

interface Replica {
  proc: LoggedProcess;
  identity: string;
  metricsUrl: string;
  /** its inspector (--inspect), for a full GC before the live heap is read */
  inspectorUrl?: string;
}

/** What a replica's /metrics said once the work was done. */
interface ReplicaReport {
  hostsHeld: number | null;
  /** zvm_events_dropped_total; null while the recorder has no such counter */
  eventsDropped: number | null;
  /** host Leases this replica lost (renew deadline passed, or taken) since it started */
  hostsLost: number;
}

interface RunResult {
  replicas: number;
  readySeconds: number;
  boundSeconds: number;
  rssMb: number[];
  baselineMb: number[];
  /** each replica's live heap (after a full GC) once the work is done, and before the guests */
  heapMb: number[];
  heapBaselineMb: number[];
  cpuSeconds: number;
  /** CPU-seconds each process used from the first create to all Ready */
  processCpu: Record<string, number>;
  /** CPU-seconds per second each process used with every host held and no guest yet */
  idleCpuPerSecond: Record<string, number>;
  /** CPU-seconds the whole machine was busy meanwhile (other engineers' work included) */
  machineBusy: number;
  reports: ReplicaReport[];
  failoverSeconds?: number;
  reconciled: number;
  /** apiserver requests about ZGuests and Events (per-object verbs), the bench's creates left out */
  requests: number;
  requestsByVerb: Record<string, number>;
  /** every request the apiserver served from the first create to all Ready, by verb and resource */
  everyRequest: Record<string, number>;
  /** SMAPI calls by function on the busiest host */
  busiestCalls: Record<string, number>;
}

const EVERY_VERB = new Set(['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);
const LEASE = { duration: '6s', renew: '4s', retry: '1s' };
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

export async function until(what: string, probe: () => Promise<boolean>, deadline: number, everyMs = 1000): Promise<void> {
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`bench shard: gave up waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** NODE_OPTIONS for a V8 CPU profile written into `dir` at exit: a sample every 250 µs, so a guest's few milliseconds of work get a few dozen samples, not a handful. */
export const cpuProfOptions = (dir: string): string => `--cpu-prof --cpu-prof-interval=250 --cpu-prof-dir=${dir}`;

export async function startReplica(o: OperatorEnv, name: string, bench: ShardBenchOptions): Promise<Replica> {
  const [probePort, metricsPort] = await freePorts(2);
  const nodeOptions = [
    '--inspect=127.0.0.1:0',
    ...(bench.cpuProfDir ? [cpuProfOptions(bench.cpuProfDir)] : []),
    ...(bench.heapSnapshotDir ? [`--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${bench.heapSnapshotDir}`] : []),
  ].join(' ');
  const proc = spawnCli(o, name, [
    'controller', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace, '--health-probe-bind-address', `127.0.0.1:${probePort}`,
    '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--poll-ms', '500', '--concurrency', '16',
    '--leader-elect-lease-duration', LEASE.duration, '--leader-elect-renew-deadline', LEASE.renew, '--leader-elect-retry-period', LEASE.retry,
  ], { POD_NAME: name, LOG_LEVEL: 'info', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) });
  await until(`${name} ready`, async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok === true, Date.now() + 120_000, 500);
  const identity = /"identity":"([^"]+)"/.exec(readFileSync(proc.logPath, 'utf8'))?.[1] ?? '';
  return { proc, identity, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, inspectorUrl: inspectorUrl(proc.logPath) };
}

/** The sum of a metric's series (those whose labels include `label`, e.g. `event="lost"`) in a Prometheus text page; null when the page has none. */
export function metricSum(page: string, name: string, label = ''): number | null {
  const values = page.split('\n').filter((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(label)).map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) : null;
}

async function replicaReport(r: Replica): Promise<ReplicaReport> {
  const page = await (await fetch(r.metricsUrl)).text();
  return {
    hostsHeld: metricSum(page, 'zvm_shard_hosts_held'), eventsDropped: metricSum(page, 'zvm_events_dropped_total'),
    hostsLost: metricSum(page, 'zvm_shard_lease_transitions_total', 'event="lost"') ?? 0,
  };
}

/** Has each replica write a heap snapshot (its --heapsnapshot-signal), one at a time: each one stops its process for seconds. */
async function heapSnapshots(replicas: Replica[], dir: string, deadline: number): Promise<void> {
  for (const r of replicas) {
    const pid = r.proc.child.pid ?? 0;
    const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
    process.kill(pid, 'SIGUSR2');
    let size = -1;
    await until(`heap snapshot of ${r.identity}`, async () => {
      const file = readdirSync(dir).find((f) => !before.has(f) && f.includes(`.${pid}.`) && f.endsWith('.heapsnapshot'));
      const now = file ? statSync(join(dir, file)).size : -1;
      const stable = now > 0 && now === size;
      size = now;
      return stable;
    }, deadline, 2000);
  }
}

/** Each replica's live heap in MB, one at a time (a full GC stops its process for a moment); NaN without an inspector. */
async function liveHeaps(replicas: Replica[]): Promise<number[]> {
  const mb: number[] = [];
  for (const r of replicas) mb.push(r.inspectorUrl ? (await liveHeapBytes(r.inspectorUrl)) / 1048576 : NaN);
  return mb;
}

/** CPU-seconds used so far by each process that shares the machine in a run. */
function processCpu(env: OperatorEnv, replicas: Replica[]): Record<string, number> {
  const bench = process.cpuUsage();
  const etcd = childrenNamed(process.pid, 'etcd');
  return {
    'kube-apiserver': cpuSeconds(env.env.apiserverPid() ?? 0),
    etcd: etcd.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    'bench (simulators, guest creates)': (bench.user + bench.system) / 1e6,
    ...Object.fromEntries(replicas.map((r, i) => [`replica ${i + 1}`, cpuSeconds(r.proc.child.pid ?? 0)])),
  };
}

function cpuDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, Math.round((v - (before[k] ?? 0)) * 100) / 100]));
}

/**
 * The Ready guests, kept from a watch. Listing every guest every 2 s instead cost the apiserver, the machine's
 * busiest process, about as much as a replica's whole work at 12×400, and measured the run to 2 s.
 */
async function watchReady(store: StateStore, signal: AbortSignal): Promise<() => number> {
  const ready = new Set<string>();
  const informer = createInformer<ZGuest>({ store, kind: 'ZGuest', namespace: 'zvm-system' });
  const look = (g: ZGuest): void => {
    if (g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ready.add(g.metadata.name);
    else ready.delete(g.metadata.name);
  };
  informer.addHandler({ onAdd: look, onUpdate: (_old, g) => look(g), onDelete: (g) => ready.delete(g.metadata.name) });
  void informer.start(signal);
  if (!(await informer.waitForSync(signal))) throw new Error('bench shard: the guest watch did not sync');
  return () => ready.size;
}

/** Creates the guests through the API, `parallel` requests at a time. */
async function createGuests(store: StateStore, hosts: number, perHost: number, parallel = 16): Promise<void> {
  const specs: ZGuest[] = [];
  for (let h = 0; h < hosts; h += 1) {
    for (let g = 0; g < perHost; g += 1) {
      specs.push({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: `b${h + 1}-${g}`, namespace: 'zvm-system' }, spec: { userid: `B${h + 1}G${g}`.slice(0, 8), host: `h${h + 1}`, vcpus: 1, memory: '512M', powerState: 'On' } } as ZGuest);
    }
  }
  for (let i = 0; i < specs.length; i += parallel) await Promise.all(specs.slice(i, i + parallel).map((s) => store.create(s)));
}

async function runOnce(o: ShardBenchOptions, replicaCount: number): Promise<RunResult> {
  const env = await startOperatorEnv();
  const hosts: BenchHost[] = [];
  const replicas: Replica[] = [];
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.kubeconfig) });
  const watching = new AbortController();
  try {
    for (let i = 0; i < o.hosts; i += 1) hosts.push(await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency }));
    const password = BENCH_AUTH.password;
    await applyObjects(env, [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-smapi' }, stringData: { userid: BENCH_AUTH.userid, password } },
      ...hosts.map((h, i) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: `h${i + 1}` }, spec: { smapi: { host: '127.0.0.1', port: h.port, credentialsSecret: 'bench-smapi', concurrency: Math.ceil(o.concurrency * 1.5) } } })),
    ]);
    for (let i = 0; i < replicaCount; i += 1) replicas.push(await startReplica(env, `bench-r${i + 1}-${randomBytes(2).toString('hex')}`, o));
    await until('every host held', async () => [...(await hostLeases(env)).values()].filter((l) => l.holder).length === o.hosts, o.deadline);
    const heapBaseline = await liveHeaps(replicas);
    const idle0 = { cpu: processCpu(env, replicas), at: performance.now() };
    // the lowest over a few seconds: a replica that just handed hosts over still holds their garbage
    const baseline = await settledRss(replicas, 10_000, 2000);
    const idleSeconds = (performance.now() - idle0.at) / 1000;
    const idleCpuPerSecond = Object.fromEntries(Object.entries(cpuDelta(idle0.cpu, processCpu(env, replicas))).map(([k, v]) => [k, Math.round((v / idleSeconds) * 1000) / 1000]));
    const cpu0 = processCpu(env, replicas);
    const busy0 = machineBusySeconds();
    for (const h of hosts) h.reset();

    const readyCount = await watchReady(store, watching.signal);
    const requests0 = await perObjectRequests(env.kubeconfig);
    const everyRequest0 = await perObjectRequests(env.kubeconfig, EVERY_VERB, 'all');
    const t0 = performance.now();
    const total = o.hosts * o.guestsPerHost;
    await createGuests(store, o.hosts, o.guestsPerHost);
    await until(`${total} guests Ready`, async () => readyCount() === total, o.deadline, 100);
    const readySeconds = (performance.now() - t0) / 1000;
    const cpuUsed = cpuDelta(cpu0, processCpu(env, replicas));
    const machineBusy = machineBusySeconds() - busy0;
    const cpuSecondsUsed = replicas.reduce((sum, _r, i) => sum + cpuUsed[`replica ${i + 1}`], 0);
    const everyRequest = requestDelta(everyRequest0, await perObjectRequests(env.kubeconfig, EVERY_VERB, 'all'));
    const requestsByVerb = requestDelta(requests0, await settledRequests(env.kubeconfig));
    const requests = Object.values(requestsByVerb).reduce((a, b) => a + b, 0) - total;
    // physical bound: hosts in parallel; the busiest host needs its work's calls × latency ÷ concurrency
    const busiest = hosts.reduce((a, b) => (b.total() > a.total() ? b : a));
    const boundSeconds = workCalls(busiest.counts(), o.guestsPerHost) * (o.latencyMs / 1000) / o.concurrency;
    const heap = await liveHeaps(replicas);
    const rss = await settledRss(replicas);
    const reports = await Promise.all(replicas.map(replicaReport));
    if (o.heapSnapshotDir) await heapSnapshots(replicas, o.heapSnapshotDir, o.deadline);
    const failoverSeconds = replicaCount >= 2 ? await failover(env, replicas[0], o.deadline) : undefined;
    const mb = (b: number): number => Math.round((b / 1048576) * 10) / 10;
    return { replicas: replicaCount, readySeconds, boundSeconds, rssMb: rss.map(mb), baselineMb: baseline.map(mb), heapMb: heap.map((v) => Math.round(v * 10) / 10), heapBaselineMb: heapBaseline.map((v) => Math.round(v * 10) / 10), cpuSeconds: cpuSecondsUsed, processCpu: cpuUsed, idleCpuPerSecond, machineBusy, reports,
      failoverSeconds, reconciled: total, requests, requestsByVerb, everyRequest, busiestCalls: busiest.counts() };
  } finally {
    watching.abort();
    for (const r of replicas) await stopProcess(r.proc);
    await store.close();
    for (const h of hosts) await h.close();
    await env.env.stop();
  }
}

/**
 * The calls a host's guests need: each SMAPI function at most once per guest. Calls beyond that are drift
 * looks, polls and retries, whose number grows with the time the run takes and with how the hosts are
 * spread: counting them made the bound a property of the run, not of the work (12×400 counted 21.6 calls
 * per guest with one replica, 9 with four, because every host's operator in a replica also looked at the
 * replica's other hosts; so the run with more of them got the longer bound, 54 s against 23 s, and the
 * kinder ratio). Counting each function once per guest keeps the bound a property of the work (a lower bound).
 */
export function workCalls(counts: Record<string, number>, guests: number): number {
  return Object.values(counts).reduce((sum, n) => sum + Math.min(n, guests), 0);
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
  for (const dir of [o.cpuProfDir, o.heapSnapshotDir]) if (dir) mkdirSync(dir, { recursive: true });
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
  return [...figures, ...shareOfSingle(runs), ...fasterThanSingle(runs), ...model(runs, o)];
}

/** "With more replicas no slower than with one": time to all Ready with R replicas ÷ with one, same work. */
function fasterThanSingle(runs: RunResult[]): Figure[] {
  const single = runs.find((r) => r.replicas === 1);
  if (!single) return [];
  return runs.filter((r) => r.replicas > 1).map((run): Figure => ({
    id: `shard.r${run.replicas}.vs-single`, name: `${run.replicas} replicas: time to all Ready ÷ 1 replica's`, value: run.readySeconds / single.readySeconds,
    unit: '×', target: { op: '<=', value: 1 }, detail: `${run.readySeconds.toFixed(1)} s against ${single.readySeconds.toFixed(1)} s`,
  }));
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
  const drops = run.reports.map((p) => p.eventsDropped);
  const dropped = drops.includes(null) ? null : drops.reduce<number>((a, b) => a + (b ?? 0), 0);
  const cpuTotal = Object.values(run.processCpu).reduce((a, b) => a + b, 0);
  const machineBound = cpuTotal / cpus().length;
  const perReplica = (f: (p: ReplicaReport) => number | null): string => run.reports.map((p) => f(p)?.toFixed(0) ?? '-').join(', ');
  const figures: Figure[] = [
    { id: `shard.r${r}.ready`, name: `${size}: time to all Ready`, value: run.readySeconds, unit: 's', detail: `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores (shared machine)` },
    {
      id: `shard.r${r}.ratio`, name: `${size}: time to all Ready ÷ physical bound`, value: run.readySeconds / run.boundSeconds, unit: '×',
      ...(r === 1 ? { target: { op: '<=', value: 2 } } : {}), detail: `physical bound ${run.boundSeconds.toFixed(1)} s; busiest host's calls ${JSON.stringify(run.busiestCalls)}`,
    },
    {
      id: `shard.r${r}.rss`, name: `${size}: RSS per replica (max)`, value: Math.max(...run.rssMb), unit: 'MB',
      detail: `replicas ${run.rssMb.join(', ')} MB; before the guests ${run.baselineMb.join(', ')} MB; live heap after a full GC ${run.heapMb.join(', ')} MB (before the guests ${run.heapBaselineMb.join(', ')} MB); hosts held ${perReplica((p) => p.hostsHeld)}, host Leases lost ${perReplica((p) => p.hostsLost)}`,
    },
    {
      id: `shard.r${r}.machine-bound`, name: `${size}: machine CPU bound (CPU-s of every process ÷ ${cpus().length} cores)`, value: machineBound, unit: 's',
      detail: `CPU-s from the first create to all Ready: ${JSON.stringify(run.processCpu)}; the whole machine was busy ${run.machineBusy.toFixed(1)} CPU-s (other work included); `
        + `before the guests, CPU-s per second: ${JSON.stringify(run.idleCpuPerSecond)}`,
    },
    { id: `shard.r${r}.vs-machine`, name: `${size}: time to all Ready ÷ machine CPU bound`, value: run.readySeconds / machineBound, unit: '×' },
    {
      id: `shard.r${r}.apiserver-load`, name: `${size}: every apiserver request per guest`, value: Object.values(run.everyRequest).reduce((a, b) => a + b, 0) / run.reconciled, unit: 'req',
      detail: `from the first create to all Ready, the bench's included: ${JSON.stringify(Object.fromEntries(Object.entries(run.everyRequest).sort((a, b) => b[1] - a[1])))}`,
    },
    { id: `shard.r${r}.events-dropped`, name: `${size}: Events dropped by the recorders`, value: dropped, unit: '', detail: `per replica ${perReplica((p) => p.eventsDropped)} (zvm_events_dropped_total; - where a replica has no such counter)` },
    {
      id: `shard.r${r}.cpu`, name: `${size}: CPU-seconds per reconciled guest`, value: run.cpuSeconds / run.reconciled, unit: 'CPU-s', digits: 3,
      ...(r === 1 ? { target: { op: '<=', value: 0.008 } } : {}),
    },
    {
      id: `shard.r${r}.requests`, name: `${size}: apiserver requests per guest to Ready`, value: run.requests / run.reconciled, unit: 'req',
      target: { op: '<=', value: 5 }, detail: `ZGuest and Event requests other than lists and watches, less the bench's creates: ${JSON.stringify(run.requestsByVerb)}; `
        + `${dropped === null ? 'an unknown number of' : dropped} Events dropped by the recorders (not posted, so not counted)`,
    },
  ];
  if (r > 1) {
    figures.push({ id: `shard.r${r}.rss-balance`, name: `${size}: max replica RSS above baseline ÷ (total ÷ ${r})`, value: share > 0 ? Math.max(...extra) / share : null, unit: '×', target: { op: '<=', value: 1.5 } });
    // the same reading of the live heaps: what each replica holds, without the garbage RSS carries at random
    const grown = run.heapMb.map((v, i) => v - run.heapBaselineMb[i]);
    const mean = grown.reduce((a, b) => a + b, 0) / r;
    figures.push({
      id: `shard.r${r}.heap-balance`, name: `${size}: max replica live heap above baseline ÷ (total ÷ ${r})`, value: mean > 0 ? Math.max(...grown) / mean : null, unit: '×',
      target: { op: '<=', value: 1.5 }, detail: `grown ${grown.map((v) => v.toFixed(1)).join(', ')} MB after a full GC`,
    });
  }
  if (run.failoverSeconds !== undefined) figures.push({ id: `shard.r${r}.failover`, name: `${size}: failover after SIGKILL (lease ${LEASE.duration})`, value: run.failoverSeconds, unit: 's', target: { op: '<=', value: 6 + 5 } });
  return figures;
}
