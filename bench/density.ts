/**
 * `npm run bench -- --only density` (issue 38), a density gate like KubeVirt's: on a real kube-apiserver,
 * one `zvm-operator controller` and one simulated host answering each SMAPI call after 50 ms, 100
 * guests are created 100 ms apart. Per guest, creation → Ready (the guest's Ready condition as a watch
 * sees it); P50 and P95 against the work's physical bound (the calls one guest's work needs, one after
 * the other, × the latency); apiserver writes per guest (ZGuest and Event POST/PUT/PATCH/DELETE, the
 * bench's own creates left out) and the controller's CPU per guest, each with its target.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZGuest } from '../src/api/index.js';
import { loadKubeconfig } from '../src/cmd/kube-common.js';
import { createInformer } from '../src/runtime/informer.js';
import { createKubeStore } from '../src/store/kube/index.js';
import { applyObjects, startOperatorEnv, stopProcess } from '../test/e2e/operator/helpers.js';
import { perObjectRequests, requestDelta, settledRequests } from '../test/kube/apiserver-requests.js';
import { BENCH_AUTH, startBenchHost } from './lib/bench-host.js';
import { percentile, type Figure } from './lib/figures.js';
import { cpuSplit, type CpuSplit } from './lib/proc-stats.js';
import { metricSum, startReplica, until, workCalls } from './shard.js';

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const EVERY_VERB = new Set(['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);
/** how long the controller's idle CPU rate is sampled, with the host known and no guest yet */
const IDLE_SAMPLE_MS = 5000;

const splitDelta = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ user: b.user - a.user, system: b.system - a.system, mainThread: b.mainThread - a.mainThread });
const total = (c: CpuSplit): number => c.user + c.system;

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

export async function runDensity(o: DensityOptions): Promise<Figure[]> {
  const env = await startOperatorEnv();
  const host = await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency });
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.kubeconfig) });
  const watching = new AbortController();
  let replica: Awaited<ReturnType<typeof startReplica>> | undefined;
  try {
    await applyObjects(env, [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-smapi' }, stringData: { userid: BENCH_AUTH.userid, password: BENCH_AUTH.password } },
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h1' }, spec: { smapi: { host: '127.0.0.1', port: host.port, credentialsSecret: 'bench-smapi', concurrency: o.concurrency } } },
    ]);
    replica = await startReplica(env, `density-${randomBytes(2).toString('hex')}`, { hosts: 1, guestsPerHost: o.guests, replicas: [1], latencyMs: o.latencyMs, concurrency: o.concurrency, deadline: o.deadline, cpuProfDir: o.cpuProfDir });
    // the host's first look (facts, directory) done before the clock starts
    await sleep(3000);
    host.reset();

    const created = new Map<string, number>();
    const readyAt = new Map<string, number>();
    const informer = createInformer<ZGuest>({ store, kind: 'ZGuest', namespace: 'zvm-system' });
    const look = (g: ZGuest): void => {
      if (!readyAt.has(g.metadata.name) && g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) readyAt.set(g.metadata.name, performance.now());
    };
    informer.addHandler({ onAdd: look, onUpdate: (_old, g) => look(g), onDelete: () => undefined });
    void informer.start(watching.signal);
    if (!(await informer.waitForSync(watching.signal))) throw new Error('bench density: the guest watch did not sync');

    const pid = replica.proc.child.pid ?? 0;
    // the controller's idle rate (lease renewals, informers, metrics), reported beside the figure, not taken from it
    const idle0 = cpuSplit(pid);
    await sleep(IDLE_SAMPLE_MS);
    const idle = splitDelta(idle0, cpuSplit(pid));
    const idlePerSecond = total(idle) / (IDLE_SAMPLE_MS / 1000);

    const every0 = await perObjectRequests(env.kubeconfig, EVERY_VERB, 'all');
    const writes0 = await perObjectRequests(env.kubeconfig, WRITE_VERBS);
    const reconciles0 = await reconcileCounts(replica.metricsUrl);
    const cpu0 = cpuSplit(pid);
    const t0 = performance.now();
    const creates: Promise<unknown>[] = [];
    for (let i = 0; i < o.guests; i += 1) {
      const name = `d-${i}`;
      created.set(name, performance.now());
      creates.push(store.create({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: 'zvm-system' }, spec: { userid: `D${i}`, host: 'h1', vcpus: 1, memory: '512M', powerState: 'On' } } as ZGuest));
      await sleep(o.spacingMs);
    }
    await Promise.all(creates);
    await until(`${o.guests} guests Ready`, async () => readyAt.size === o.guests, o.deadline, 100);
    const used = splitDelta(cpu0, cpuSplit(pid));
    const cpuUsed = total(used);
    const windowS = (performance.now() - t0) / 1000;
    const reconciles = countDelta(reconciles0, await reconcileCounts(replica.metricsUrl));
    const writes = requestDelta(writes0, await settledRequests(env.kubeconfig));
    // non-resource requests (the bench's own /metrics reads: `GET `) left out
    const every = Object.fromEntries(Object.entries(requestDelta(every0, await perObjectRequests(env.kubeconfig, EVERY_VERB, 'all'))).filter(([k]) => !k.endsWith(' ')));
    const everyTotal = Object.values(every).reduce((a, b) => a + b, 0) - o.guests;
    const writesTotal = Object.values(writes).reduce((a, b) => a + b, 0) - o.guests;

    const latencies = [...created].map(([name, t]) => (readyAt.get(name)! - t) / 1000).sort((a, b) => a - b);
    const callsPerGuest = workCalls(host.counts(), o.guests) / o.guests;
    const boundS = (callsPerGuest * o.latencyMs) / 1000;
    const load = loadavg()[0].toFixed(1);
    const setting = `${o.guests} guests ${o.spacingMs} ms apart, ${o.latencyMs} ms per SMAPI call, one controller, real kube-apiserver`;
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    return [
      { id: 'density.ready.p50', name: 'density: creation → Ready P50', value: p50, unit: 's', detail: `${setting}; load ${load}` },
      { id: 'density.ready.p95', name: 'density: creation → Ready P95', value: p95, unit: 's', detail: `max ${latencies[latencies.length - 1].toFixed(2)} s` },
      {
        id: 'density.ready.p95-vs-bound', name: 'density: creation → Ready P95 ÷ physical bound', value: p95 / boundS, unit: '×', target: { op: '<=', value: 2 },
        detail: `bound ${boundS.toFixed(2)} s = ${callsPerGuest.toFixed(1)} calls per guest one after the other × ${o.latencyMs} ms (${JSON.stringify(host.counts())})`,
      },
      { id: 'density.writes', name: 'density: apiserver writes per guest', value: writesTotal / o.guests, unit: 'writes', target: { op: '<=', value: 4 }, detail: `${JSON.stringify(writes)} (the bench's ${o.guests} creates left out)` },
      {
        id: 'density.requests', name: 'density: every apiserver request per guest', value: everyTotal / o.guests, unit: 'req',
        detail: `from the first create to all Ready and the Events settled, the bench's ${o.guests} creates and its metrics reads left out: ${JSON.stringify(Object.fromEntries(Object.entries(every).sort((a, b) => b[1] - a[1])))}`,
      },
      {
        id: 'density.cpu', name: 'density: controller CPU per guest', value: (cpuUsed * 1000) / o.guests, unit: 'ms', target: { op: '<=', value: 5 },
        detail: `${cpuUsed.toFixed(2)} CPU-s over ${o.guests} guests in ${windowS.toFixed(1)} s (user ${used.user.toFixed(2)}, system ${used.system.toFixed(2)}; main thread ${used.mainThread.toFixed(2)}); reconciles by controller ${JSON.stringify(reconciles)}; load ${load}`,
      },
      {
        id: 'density.cpu.idle', name: 'density: controller idle CPU (no guest yet)', value: idlePerSecond * 1000, unit: 'ms/s',
        detail: `over ${IDLE_SAMPLE_MS / 1000} s with the host known, just before the creates (user ${idle.user.toFixed(2)}, system ${idle.system.toFixed(2)}); at this rate the window's ${windowS.toFixed(1)} s hold ${((idlePerSecond * windowS * 1000) / o.guests).toFixed(1)} ms per guest of idle work`,
      },
      {
        id: 'density.cpu.marginal', name: 'density: controller CPU per guest less the idle rate', value: ((cpuUsed - idlePerSecond * windowS) * 1000) / o.guests, unit: 'ms',
        detail: `the window's CPU less ${(idlePerSecond * 1000).toFixed(1)} ms/s × ${windowS.toFixed(1)} s, per guest (the idle rate is sampled over ${IDLE_SAMPLE_MS / 1000} s in 10 ms ticks: ±${(10 / (IDLE_SAMPLE_MS / 1000)).toFixed(0)} ms/s); the target stays on the figure above, idle included, as KubeVirt's avgVirtControllerCPUUsage is the average over its whole run`,
      },
    ];
  } finally {
    watching.abort();
    if (replica) await stopProcess(replica.proc);
    await store.close();
    await host.close();
    await env.env.stop();
  }
}
