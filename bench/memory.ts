/**
 * Figures 5 and 6: the controller process with N guests in its store (and in the simulator):
 * time from process start to Ready (informer synced, what /readyz reports), and its RSS and heap
 * with every guest in the informer cache once the start-up work is done — on the SQLite store
 * (standalone's default) with the target, and on the old JSON file store beside it.
 */
import { NODE_FLAGS } from '../src/cmd/self-command.js';
import { startBenchHost } from './lib/bench-host.js';
import { compiledBenchFile, runChild } from './lib/child.js';
import type { Figure } from './lib/figures.js';
import { tempDir } from './lib/operator-world.js';
import { seedSettledGuests } from './lib/seed.js';
import { prepareBackend, type Backend } from './lib/state-backend.js';

const MB = 1024 * 1024;

interface Sample {
  readyS?: number;
  spawnToReadyS?: number;
  mem?: { rss: number; heapUsed: number; heapTotal: number; external: number };
  calls: string;
}

async function sample(file: string, backend: Backend, count: number, o: { latencyMs: number; concurrency: number; deadline: number }): Promise<Sample> {
  const host = await startBenchHost({ latencyMs: 0, concurrency: o.concurrency });
  try {
    const stateDir = tempDir('memory');
    await seedSettledGuests(host.sim, count, stateDir);
    await prepareBackend(backend, stateDir);
    host.latencyMs = o.latencyMs;
    host.reset();
    const run = await runChild(file, [String(host.port), stateDir, backend], { nodeArgs: ['--expose-gc', ...NODE_FLAGS], timeoutMs: Math.max(10_000, o.deadline - Date.now()) });
    const ready = run.lines.find((l) => 'ready' in l);
    return {
      readyS: ready ? Number(ready.ready) / 1000 : undefined,
      spawnToReadyS: ready ? run.at[run.lines.indexOf(ready)] / 1000 : undefined,
      mem: run.lines.find((l) => 'memory' in l)?.memory as Sample['mem'],
      calls: `${host.total()} SMAPI calls during start-up ${JSON.stringify(host.counts())}`,
    };
  } finally {
    await host.close();
  }
}

export async function runMemory(o: { count: number; latencyMs: number; concurrency: number; deadline: number }): Promise<Figure[]> {
  const file = compiledBenchFile('controller-proc.ts');
  const sqlite = await figuresFor(file, 'sqlite', o);
  const json = await figuresFor(file, 'json', o);
  return [...sqlite, ...json.map((f) => ({ ...f, id: `json.${f.id}`, name: `${f.name} (old JSON store)`, target: undefined }))];
}

async function figuresFor(file: string, backend: Backend, o: { count: number; latencyMs: number; concurrency: number; deadline: number }): Promise<Figure[]> {
  const empty = await sample(file, backend, 1, o);
  const full = await sample(file, backend, o.count, o);
  const mb = (n: number | undefined) => (n === undefined ? null : n / MB);
  return [
    {
      id: 'startup.ready', name: `startup: process start to Ready, ${o.count} guests in the store`, value: full.readyS ?? null, unit: 's',
      detail: `compiled (node dist-style, no tsx); ${full.spawnToReadyS?.toFixed(2) ?? '?'} s from spawn as the parent saw it; ${empty.readyS?.toFixed(2) ?? '?'} s with 1 guest; ${full.calls}`,
    },
    {
      id: 'memory.rss', name: `memory: controller RSS, ${o.count} guests cached`, value: mb(full.mem?.rss), unit: 'MB', target: { op: '<=', value: 120 },
      detail: `${mb(empty.mem?.rss)?.toFixed(0) ?? '?'} MB with 1 guest: the guests add ${((full.mem?.rss ?? 0) - (empty.mem?.rss ?? 0)) / MB | 0} MB`,
    },
    {
      id: 'memory.heap', name: `memory: controller heap used, ${o.count} guests cached`, value: mb(full.mem?.heapUsed), unit: 'MB', target: { op: '<=', value: 150 },
      detail: `${mb(empty.mem?.heapUsed)?.toFixed(0) ?? '?'} MB with 1 guest; heap total ${mb(full.mem?.heapTotal)?.toFixed(0) ?? '?'} MB; external ${mb(full.mem?.external)?.toFixed(0) ?? '?'} MB`,
    },
  ];
}
