/**
 * `npm run bench -- --only density` (issue 38), a density gate like KubeVirt's: on a real kube-apiserver,
 * the controller pod as the chart renders it (one replica, no REST sidecar: chart-pods.ts) and one
 * simulated host answering each SMAPI call after 50 ms, three bursts of 100 guests created 100 ms apart.
 * Per guest, creation → Ready (the guest's Ready condition as a watch sees it); P50 and P95 against the
 * work's physical bound (the calls one guest's work needs, one after the other, × the latency); apiserver
 * writes per guest (ZGuest and Event POST/PUT/PATCH/DELETE, the bench's own creates left out) and the
 * controller's CPU per guest, each with its target.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZGuest } from '../src/api/index.js';
import { loadKubeconfig } from '../src/cmd/kube-common.js';
import { NODE_FLAGS } from '../src/cmd/self-command.js';
import { createInformer } from '../src/runtime/informer.js';
import { createKubeStore } from '../src/store/kube/index.js';
import type { StateStore } from '../src/store/port.js';
import { installChart, type ChartInstall } from '../test/e2e/operator/chart-pods.js';
import { applyObjects, startOperatorEnv } from '../test/e2e/operator/helpers.js';
import { perObjectRequests, requestDelta, settledRequests } from '../test/kube/apiserver-requests.js';
import { BENCH_AUTH, startBenchHost } from './lib/bench-host.js';
import { percentile, type Figure } from './lib/figures.js';
import { cpuSplit, mainThreadWakeUps, type CpuSplit } from './lib/proc-stats.js';
import { cpuProfOptions, metricSum, until, workCalls } from './shard.js';

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const EVERY_VERB = new Set(['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);
/** how long the controller's idle CPU rate is sampled, with the host known and no guest yet */
const IDLE_SAMPLE_MS = 5000;
/**
 * Bursts of `guests` each, one after the other on the same controller; the CPU figure is the median burst's.
 * One burst's CPU per guest ranged 4.4–8.4 ms for the same build on this 2-core machine (bench/README.md, density).
 */
const BURSTS = 3;

const splitDelta = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ user: b.user - a.user, system: b.system - a.system, mainThread: b.mainThread - a.mainThread });
const total = (c: CpuSplit): number => c.user + c.system;

/** What the controller has used so far: CPU, and how often its main thread slept and woke. */
interface Usage {
  cpu: CpuSplit;
  wakeUps: number;
}
const usageOf = (pid: number): Usage => ({ cpu: cpuSplit(pid), wakeUps: mainThreadWakeUps(pid) });
/** What the controller has used since `before`. */
function usageSince(before: Usage, pid: number): Usage {
  const now = usageOf(pid);
  return { cpu: splitDelta(before.cpu, now.cpu), wakeUps: now.wakeUps - before.wakeUps };
}

export interface DensityOptions {
  guests: number;
  spacingMs: number;
  latencyMs: number;
  concurrency: number;
  deadline: number;
  /** the controller's V8 CPU profile goes there (`--density-cpu-prof <dir>`) */
  cpuProfDir?: string;
}

/** controller_runtime_reconcile_total by controller, from the controller's /metrics. */
async function reconcileCounts(metricsUrl: string): Promise<Record<string, number>> {
  const page = await (await fetch(metricsUrl)).text();
  const names = new Set([...page.matchAll(/^controller_runtime_reconcile_total\{controller="([^"]+)"/gm)].map((m) => m[1]));
  return Object.fromEntries([...names].map((n) => [n, metricSum(page, 'controller_runtime_reconcile_total', `controller="${n}"`) ?? 0]));
}

const countDelta = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v - (a[k] ?? 0)]).filter(([, v]) => v !== 0));

/** One burst's figures: what the controller spent and what the apiserver served, from its first create to all Ready. */
interface Burst extends Usage {
  windowS: number;
  reconciles: Record<string, number>;
  writes: Record<string, number>;
  every: Record<string, number>;
  latencies: number[];
}

/**
 * CPU (µs) one timer wake-up costs a bare Node process that slept `gapMs` before it: what this machine charges
 * for each time a process wakes, which every round trip of a guest's work pays (a controller sleeps between them).
 */
function wakeCostUs(gapMs: number, wakes: number): number {
  const script = `const c0 = process.cpuUsage(); let k = 0; const t = setInterval(() => { if (++k < ${wakes}) return; clearInterval(t); const c = process.cpuUsage(c0); console.log((c.user + c.system) / ${wakes}); }, ${gapMs});`;
  return Number(bareNode(script, gapMs * wakes));
}

/** What `script` prints, run by a bare Node process with the shipped flags; bounded to `runMs` and 30 s more. */
function bareNode(script: string, runMs: number): string {
  return spawnSync(process.execPath, [...NODE_FLAGS, '-e', script], { encoding: 'utf8', timeout: runMs + 30_000 }).stdout.trim();
}

/**
 * Time (µs) the first write to a loopback socket takes right after a wake-up from `gapMs` asleep, and a second
 * write just after it: what a process pays to get back into the kernel after sleeping (the peer is the same
 * process, so no other process is woken by it). Every request a guest's work sends is such a first write.
 */
function firstWriteUs(gapMs: number, rounds: number): { first: number; second: number } {
  const script = `const net = require('node:net');
const srv = net.createServer((c) => c.resume()).listen(0, '127.0.0.1', () => {
  const s = net.connect(srv.address().port, '127.0.0.1', () => {
    const buf = Buffer.alloc(1024, 120); const took = [0n, 0n]; let k = 0;
    const t = setInterval(() => {
      const a = process.hrtime.bigint(); s.write(buf); const b = process.hrtime.bigint(); s.write(buf); const c = process.hrtime.bigint();
      took[0] += b - a; took[1] += c - b;
      if (++k < ${rounds}) return;
      clearInterval(t); console.log(JSON.stringify(took.map((x) => Number(x) / ${rounds} / 1000))); process.exit(0);
    }, ${gapMs});
  });
});`;
  const [first, second] = JSON.parse(bareNode(script, gapMs * rounds) || '[NaN, NaN]') as number[];
  return { first, second };
}

/** What one burst needs of the running gate. */
interface Gate {
  o: DensityOptions;
  kubeconfig: string;
  namespace: string;
  store: StateStore;
  /** the controller's metrics page and process */
  metricsUrl: string;
  pid: number;
  /** when each guest was first seen Ready (the bench's own watch) */
  readyAt: Map<string, number>;
}

/** Burst `b`: `o.guests` guests created `o.spacingMs` apart, measured from the first create to all Ready. */
async function runBurst(g: Gate, b: number): Promise<Burst> {
  const every0 = await perObjectRequests(g.kubeconfig, EVERY_VERB, 'all');
  const writes0 = await perObjectRequests(g.kubeconfig, WRITE_VERBS);
  const reconciles0 = await reconcileCounts(g.metricsUrl);
  const created = new Map<string, number>();
  const used0 = usageOf(g.pid);
  const t0 = performance.now();
  const creates: Promise<unknown>[] = [];
  for (let i = 0; i < g.o.guests; i += 1) {
    const name = `d${b}-${i}`;
    created.set(name, performance.now());
    creates.push(g.store.create({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: g.namespace }, spec: { userid: `D${b}X${i}`, host: 'h1', vcpus: 1, memory: '512M', powerState: 'On' } } as ZGuest));
    await sleep(g.o.spacingMs);
  }
  await Promise.all(creates);
  await until(`${g.o.guests} guests Ready`, async () => [...created.keys()].every((n) => g.readyAt.has(n)), g.o.deadline, 100);
  const { cpu, wakeUps } = usageSince(used0, g.pid);
  const windowS = (performance.now() - t0) / 1000;
  const reconciles = countDelta(reconciles0, await reconcileCounts(g.metricsUrl));
  const writes = requestDelta(writes0, await settledRequests(g.kubeconfig));
  // non-resource requests (the bench's own /metrics reads: `GET `) left out
  const every = Object.fromEntries(Object.entries(requestDelta(every0, await perObjectRequests(g.kubeconfig, EVERY_VERB, 'all'))).filter(([k]) => !k.endsWith(' ')));
  const latencies = [...created].map(([name, t]) => (g.readyAt.get(name)! - t) / 1000);
  return { cpu, wakeUps, windowS, reconciles, writes, every, latencies };
}

/** What the gate measured besides its bursts. */
interface Measured {
  /** the controller before the first burst, host known */
  idle: CpuSplit;
  idlePerSecond: number;
  idleWakeUpsPerSecond: number;
  /** SMAPI calls the simulated host answered, by function */
  hostCalls: Record<string, number>;
  /** this machine's price of a wake-up (µs, after 100 ms and 1 ms asleep) and of the first write after one */
  wakeIdle: number;
  wakeBusy: number;
  write: { first: number; second: number };
}

/** The gate's figures, with their targets, from its bursts. */
function densityFigures(o: DensityOptions, bursts: Burst[], m: Measured): Figure[] {
  const guests = o.guests * BURSTS;
  const sum = (pick: (b: Burst) => Record<string, number>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const b of bursts) for (const [k, v] of Object.entries(pick(b))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const writes = sum((b) => b.writes);
  const every = sum((b) => b.every);
  const reconciles = sum((b) => b.reconciles);
  const everyTotal = Object.values(every).reduce((a, c) => a + c, 0) - guests;
  const writesTotal = Object.values(writes).reduce((a, c) => a + c, 0) - guests;
  const perGuestMs = (b: Burst): number => (total(b.cpu) * 1000) / o.guests;
  const byCpu = [...bursts].sort((a, c) => perGuestMs(a) - perGuestMs(c));
  const median = byCpu[Math.floor(byCpu.length / 2)] as Burst;
  const marginalMs = (b: Burst): number => ((total(b.cpu) - m.idlePerSecond * b.windowS) * 1000) / o.guests;

  const latencies = bursts.flatMap((b) => b.latencies).sort((a, c) => a - c);
  const callsPerGuest = workCalls(m.hostCalls, guests) / guests;
  const boundS = (callsPerGuest * o.latencyMs) / 1000;
  const load = loadavg()[0].toFixed(1);
  const setting = `${BURSTS} bursts of ${o.guests} guests ${o.spacingMs} ms apart, ${o.latencyMs} ms per SMAPI call, one controller as the chart runs it, real kube-apiserver`;
  const p50 = percentile(latencies, 50);
  const p95 = percentile(latencies, 95);
  const cpuOf = (b: Burst): string => `${perGuestMs(b).toFixed(1)} ms (${total(b.cpu).toFixed(2)} CPU-s in ${b.windowS.toFixed(1)} s: user ${b.cpu.user.toFixed(2)}, system ${b.cpu.system.toFixed(2)}, main thread ${b.cpu.mainThread.toFixed(2)})`;
  return [
    { id: 'density.ready.p50', name: 'density: creation → Ready P50', value: p50, unit: 's', detail: `${setting}; load ${load}` },
    { id: 'density.ready.p95', name: 'density: creation → Ready P95', value: p95, unit: 's', detail: `max ${latencies[latencies.length - 1].toFixed(2)} s` },
    {
      id: 'density.ready.p95-vs-bound', name: 'density: creation → Ready P95 ÷ physical bound', value: p95 / boundS, unit: '×', target: { op: '<=', value: 2 },
      detail: `bound ${boundS.toFixed(2)} s = ${callsPerGuest.toFixed(1)} calls per guest one after the other × ${o.latencyMs} ms (${JSON.stringify(m.hostCalls)})`,
    },
    { id: 'density.writes', name: 'density: apiserver writes per guest', value: writesTotal / guests, unit: 'writes', target: { op: '<=', value: 4 }, detail: `${JSON.stringify(writes)} (the bench's ${guests} creates left out)` },
    {
      id: 'density.requests', name: 'density: every apiserver request per guest', value: everyTotal / guests, unit: 'req',
      detail: `from each burst's first create to all Ready and the Events settled, the bench's ${guests} creates and its metrics reads left out: ${JSON.stringify(Object.fromEntries(Object.entries(every).sort((a, c) => c[1] - a[1])))}`,
    },
    {
      id: 'density.cpu', name: 'density: controller CPU per guest (median burst)', value: perGuestMs(median), unit: 'ms', target: { op: '<=', value: 5 },
      detail: `the bursts, lowest first: ${byCpu.map(cpuOf).join('; ')}; reconciles by controller ${JSON.stringify(reconciles)}; load ${load}`,
    },
    {
      id: 'density.cpu.idle', name: 'density: controller idle CPU (no guest yet)', value: m.idlePerSecond * 1000, unit: 'ms/s',
      detail: `over ${IDLE_SAMPLE_MS / 1000} s with the host known, just before the first burst (user ${m.idle.user.toFixed(2)}, system ${m.idle.system.toFixed(2)}); at this rate the median burst's ${median.windowS.toFixed(1)} s hold ${((m.idlePerSecond * median.windowS * 1000) / o.guests).toFixed(1)} ms per guest of idle work`,
    },
    {
      id: 'density.cpu.marginal', name: 'density: controller CPU per guest less the idle rate (median burst)', value: marginalMs(median), unit: 'ms',
      detail: `the burst's CPU less ${(m.idlePerSecond * 1000).toFixed(1)} ms/s × ${median.windowS.toFixed(1)} s, per guest (the idle rate is sampled over ${IDLE_SAMPLE_MS / 1000} s in 10 ms ticks: ±${(10 / (IDLE_SAMPLE_MS / 1000)).toFixed(0)} ms/s); the target stays on the figure above, idle included, as KubeVirt's avgVirtControllerCPUUsage is the average over its whole run`,
    },
    {
      id: 'density.wake-ups', name: 'density: controller wake-ups per guest (median burst)', value: median.wakeUps / o.guests, unit: 'wake-ups',
      detail: `the main thread's voluntary context switches: the bursts ${bursts.map((b) => (b.wakeUps / o.guests).toFixed(1)).join(', ')} per guest; idle ${m.idleWakeUpsPerSecond.toFixed(0)}/s (${((m.idleWakeUpsPerSecond * median.windowS) / o.guests).toFixed(1)} per guest of the median burst's window); each costs the wake-up below`,
    },
    {
      id: 'density.machine.wake', name: 'density: CPU of one wake-up after 100 ms asleep (bare Node)', value: m.wakeIdle, unit: 'µs',
      detail: `${m.wakeBusy.toFixed(0)} µs when it wakes every 1 ms: a process that sleeps between round trips pays the difference on each (this machine's figure, beside the controller's)`,
    },
    {
      id: 'density.machine.first-write', name: 'density: first socket write after 50 ms asleep (bare Node)', value: m.write.first, unit: 'µs',
      detail: `a second write right after it: ${m.write.second.toFixed(1)} µs. A loopback write whose peer is awake (the same process); each request of a guest's work is such a first write, and its peer (apiserver, SMAPI server) is usually asleep too`,
    },
  ];
}

export async function runDensity(o: DensityOptions): Promise<Figure[]> {
  const wakeIdle = wakeCostUs(100, 40);
  const write = firstWriteUs(50, 60);
  const wakeBusy = wakeCostUs(1, 1000);
  const env = await startOperatorEnv();
  const host = await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency });
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.kubeconfig) });
  const watching = new AbortController();
  let install: ChartInstall | undefined;
  try {
    await applyObjects(env, [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-smapi' }, stringData: { userid: BENCH_AUTH.userid, password: BENCH_AUTH.password } },
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h1' }, spec: { smapi: { host: '127.0.0.1', port: host.port, credentialsSecret: 'bench-smapi', concurrency: o.concurrency } } },
    ]);
    // the controller as the chart runs it (its args, Lease timings, ServiceAccount), one replica, no REST sidecar
    install = await installChart(env, {
      set: ['replicas=1,rest.enabled=false'],
      ...(o.cpuProfDir ? { diagnosticEnv: { NODE_OPTIONS: cpuProfOptions(o.cpuProfDir) } } : {}),
    });
    const controller = install.pod().containers.controller;
    if (!controller) throw new Error('bench density: the chart rendered no controller container');
    const metricsUrl = `http://127.0.0.1:${controller.ports.metrics}/metrics`;
    const pid = controller.proc.child.pid ?? 0;
    // the host's first look (facts, directory) done before the clock starts
    await sleep(3000);
    host.reset();

    const readyAt = new Map<string, number>();
    const informer = createInformer<ZGuest>({ store, kind: 'ZGuest', namespace: env.namespace });
    const look = (g: ZGuest): void => {
      if (!readyAt.has(g.metadata.name) && g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) readyAt.set(g.metadata.name, performance.now());
    };
    informer.addHandler({ onAdd: look, onUpdate: (_old, g) => look(g), onDelete: () => undefined });
    void informer.start(watching.signal);
    if (!(await informer.waitForSync(watching.signal))) throw new Error('bench density: the guest watch did not sync');

    // the controller's idle rate (lease renewals, informers, metrics), reported beside the figure, not taken from it
    const idle0 = usageOf(pid);
    await sleep(IDLE_SAMPLE_MS);
    const { cpu: idle, wakeUps: idleWakeUps } = usageSince(idle0, pid);
    const idleWakeUpsPerSecond = idleWakeUps / (IDLE_SAMPLE_MS / 1000);
    const idlePerSecond = total(idle) / (IDLE_SAMPLE_MS / 1000);

    const bursts: Burst[] = [];
    const gate: Gate = { o, kubeconfig: env.kubeconfig, namespace: env.namespace, store, metricsUrl, pid, readyAt };
    for (let b = 0; b < BURSTS; b += 1) bursts.push(await runBurst(gate, b));
    return densityFigures(o, bursts, { idle, idlePerSecond, idleWakeUpsPerSecond, hostCalls: host.counts(), wakeIdle, wakeBusy, write });
  } finally {
    watching.abort();
    await install?.stop();
    await store.close();
    await host.close();
    await env.env.stop();
  }
}
