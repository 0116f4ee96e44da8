/**
 * `npm run bench [-- --quick] [-- --only plugin,builds,reference,density,calls,fleet,idle,rest,scale,logs,memory,store]`: measures how well the
 * operator uses a z/VM host (issue 6) and prints a table; every figure with its target and verdict
 * goes to bench/results.json. Benchmarks are not tests: nothing here asserts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { runCallsPerOp } from './calls-per-op.js';
import { runDensity } from './density.js';
import { runFleet, runSmapiFloor } from './fleet.js';
import { runIdle } from './idle.js';
import { runMemory } from './memory.js';
import { runPlugin } from './plugin.js';
import { runRest } from './rest.js';
import { runReferenceRest } from './reference-rest.js';
import { runRestBuilds } from './rest-builds.js';
import { runLogCost, runScale } from './scale.js';
import { runShard } from './shard.js';
import { runStartup } from './startup.js';
import { runStore } from './store.js';
import { renderTable, verdictOf, type Figure } from './lib/figures.js';

interface Bench {
  id: string;
  /** wall-clock bound; a benchmark past it reports what it has */
  boundMs: number;
  run(o: { quick: boolean; deadline: number }): Promise<Figure[]>;
}

const LATENCY_MS = 50;
const CONCURRENCY = 8;
/** controller workers 2× and SMAPI connections 1.5× the host's worker pool (README, Performance) */
const TUNED = { workers: 16, poolSize: 12 };

const BENCHES: Bench[] = [
  // the compiled command as users start it: standalone, and the controller against a kube-apiserver
  { id: 'startup', boundMs: 300_000, run: (o) => runStartup({ runs: o.quick ? 2 : 4, idleMs: o.quick ? 5000 : 15_000, deadline: o.deadline }) },
  // issues 38/39: the kubectl plugin at the keyboard (a few seconds)
  { id: 'plugin', boundMs: 60_000, run: async (o) => runPlugin({ runs: o.quick ? 5 : 15 }) },
  { id: 'calls', boundMs: 60_000, run: async (o) => (await runCallsPerOp({ latencyMs: LATENCY_MS, deadline: o.deadline })).figures },
  {
    id: 'fleet',
    boundMs: 300_000,
    async run(o) {
      const count = o.quick ? 100 : 500;
      const floor = await runSmapiFloor({ calls: o.quick ? 200 : 800, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, poolSizes: [CONCURRENCY, TUNED.poolSize] });
      // the defaults of `zvm-operator standalone --smapi-tcp` (8 workers, 8 connections), then the tuning the README recommends
      const plain = await runFleet({ count, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, workers: 8, poolSize: 8, deadline: o.deadline });
      const tuned = await runFleet({ count, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, ...TUNED, deadline: o.deadline });
      return [...floor, ...plain.map((f) => ({ ...f, target: undefined })), ...tuned];
    },
  },
  {
    id: 'idle',
    boundMs: 120_000,
    run: (o) => runIdle({ count: 1000, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, resyncMs: 2000, windowMs: o.quick ? 8000 : 20_000, deadline: o.deadline }),
  },
  {
    // issue 38: a density gate like KubeVirt's on the real apiserver, the chart's controller pod (about a minute)
    id: 'density',
    boundMs: 600_000,
    run: (o) => runDensity({ guests: 100, spacingMs: 100, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, deadline: o.deadline, cpuProfDir: argValue('--density-cpu-prof') }),
  },
  {
    // issue 38: today's standalone against the build of the commit before it, same run (the first run builds that commit, minutes)
    id: 'builds',
    boundMs: 2_400_000,
    run: (o) => runRestBuilds({ guests: o.quick ? 20 : 1000, seconds: o.quick ? 3 : 6, deadline: o.deadline }),
  },
  {
    // issue 38: our REST against feilong's sdkwsgi under uwsgi (SDK stubbed), interleaved (a few minutes)
    id: 'reference',
    boundMs: 900_000,
    run: (o) => runReferenceRest({
      guests: 1000, seconds: o.quick ? 3 : 5, rounds: o.quick ? 1 : 2,
      source: argValue('--reference-src') ?? process.env.ZVM_BENCH_FEILONG, deadline: o.deadline,
    }),
  },
  {
    id: 'rest',
    boundMs: 180_000,
    run: (o) => runRest({ count: 1000, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, ...TUNED, seconds: o.quick ? 4 : 10, deadline: o.deadline }),
  },
  {
    // issue 15: real apiserver + controller processes; sizes are flags. The full 12 × 400 with 4, 2 and 1
    // replicas took 21 min on 2 cores; the bound leaves room for a slower or busier machine
    id: 'shard',
    boundMs: 5_400_000,
    run: (o) => runShard({
      hosts: Number(argValue('--shard-hosts') ?? (o.quick ? 4 : 12)),
      guestsPerHost: Number(argValue('--shard-guests') ?? (o.quick ? 20 : 400)),
      replicas: (argValue('--shard-replicas') ?? '1,2,4').split(',').map(Number),
      latencyMs: LATENCY_MS, concurrency: CONCURRENCY, deadline: o.deadline, cpuProfDir: argValue('--shard-cpu-prof'), heapSnapshotDir: argValue('--shard-heap-snapshot'),
    }),
  },
  {
    // issue 23: the per-guest cost as the fleet grows; sizes are flags (the 1 000/5 000/20 000 curve took under a minute on 2 cores)
    id: 'scale',
    boundMs: 1_200_000,
    run: (o) => runScale({
      sizes: (argValue('--scale-sizes') ?? (o.quick ? '1000,5000' : '1000,5000,20000')).split(',').map(Number),
      creates: Number(argValue('--scale-creates') ?? 200),
      latencyMs: LATENCY_MS, concurrency: CONCURRENCY, deadline: o.deadline,
    }),
  },
  {
    // issue 23: controller CPU per guest at LOG_LEVEL warn, info and debug (about 30 s on 2 cores)
    id: 'logs',
    boundMs: 300_000,
    run: (o) => runLogCost({ size: 1000, creates: o.quick ? 100 : 200, levels: ['warn', 'info', 'debug'], latencyMs: LATENCY_MS, concurrency: CONCURRENCY, deadline: o.deadline }),
  },
  {
    id: 'memory',
    boundMs: 360_000,
    run: (o) => runMemory({ count: 10_000, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, deadline: o.deadline }),
  },
  {
    id: 'store',
    boundMs: 900_000,
    run: (o) => runStore({ counts: o.quick ? [1000, 10_000] : [10_000, 100_000], deadline: o.deadline }),
  },
];

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = argValue('--only')?.split(',');
  const figures: Array<Figure & { module: string; measuredAt: string; load1: number }> = [];
  const ran = new Set<string>();
  const started = Date.now();
  for (const bench of BENCHES.filter((b) => !only || only.includes(b.id))) {
    const t0 = Date.now();
    process.stderr.write(`bench ${bench.id}... (load ${loadavg()[0].toFixed(1)})\n`);
    let got: Figure[];
    try {
      got = await bench.run({ quick, deadline: t0 + bench.boundMs });
    } catch (err) {
      got = [{ id: `${bench.id}.error`, name: `${bench.id}: failed`, value: null, unit: '', invalid: 'the benchmark threw', detail: String((err as Error).stack ?? err) }];
    }
    // the 1-minute load average beside each figure: seven engineers may share these 2 cores
    const stamp = { module: bench.id, measuredAt: new Date().toISOString(), load1: Number(loadavg()[0].toFixed(2)) };
    figures.push(...got.map((f) => ({ ...f, ...stamp })));
    ran.add(bench.id);
    process.stderr.write(`bench ${bench.id} took ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
  const results = {
    date: new Date().toISOString(),
    quick,
    machine,
    model: { latencyMs: LATENCY_MS, concurrency: CONCURRENCY },
    wallSeconds: Math.round((Date.now() - started) / 1000),
    // modules not run this time keep their latest figures: the file is what a reader compares against
    figures: [...earlierFigures(ran), ...figures.map((f) => ({ ...f, verdict: verdictOf(f) }))],
  };
  console.log(renderTable(figures));
  for (const f of figures.filter((x) => x.detail || x.invalid)) console.log(`  ${f.id}: ${f.invalid ? `INVALID (${f.invalid}) ` : ''}${f.detail ?? ''}`);
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nmachine: ${machine.nproc} × ${machine.cpu}, node ${machine.node}; ${results.wallSeconds} s; bench/results.json written`);
}

/** Figures of the last results.json from modules not in `ran` (a figure without `module` belongs to its id's first part). */
function earlierFigures(ran: Set<string>): Array<Record<string, unknown>> {
  const file = new URL('./results.json', import.meta.url);
  if (!existsSync(file)) return [];
  const previous = JSON.parse(readFileSync(file, 'utf8')) as { date?: string; figures?: Array<Record<string, unknown>> };
  return (previous.figures ?? [])
    .map((f) => ({ module: String(f.id).split('.')[0], measuredAt: previous.date, ...f }))
    .filter((f) => !ran.has(String(f.module)));
}

await main();
