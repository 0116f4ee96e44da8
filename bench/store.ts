/**
 * Store figures (issue 14): the JSON file store and the SQLite store side by side, each in its own
 * process over the same seeded guests — start-up to Ready (informer synced), RSS and heap with every
 * guest cached, p50/p99 of a single write and of a 100-write burst, and bytes written per change.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLAGS } from '../src/cmd/self-command.js';
import { compiledBenchFile, runChild } from './lib/child.js';
import { percentile, type Figure } from './lib/figures.js';
import { tempDir } from './lib/operator-world.js';
import { seedClonedGuests } from './lib/seed.js';
import { BACKENDS, prepareBackend, stateFiles, type Backend } from './lib/state-backend.js';

const MB = 1024 * 1024;

interface Phase {
  ms: number[];
  changes: number;
  bytes: number;
}

interface StoreSample {
  backend: Backend;
  count: number;
  readyS?: number;
  /** open + informer synced, without the process's own start */
  storeS?: number;
  mem?: { rss: number; heapUsed: number };
  single?: Phase;
  burst?: Phase;
  /** ms of bare one-row commits with synchronous=FULL on the same disk (SQLite only) */
  floor?: number[];
  /** seconds the one-time import of store.json took (SQLite only) */
  importS: number;
}

async function sample(file: string, backend: Backend, count: number, seeded: string, deadline: number): Promise<StoreSample> {
  const dir = join(tempDir(`store-${backend}`), 'state');
  mkdirSync(dir, { recursive: true });
  try {
    copyFileSync(stateFiles(seeded).json, stateFiles(dir).json);
    const importS = await prepareBackend(backend, dir);
    const run = await runChild(file, [backend, dir, String(count)], { nodeArgs: ['--expose-gc', ...NODE_FLAGS], timeoutMs: Math.max(10_000, deadline - Date.now()) });
    const find = <T>(key: string) => run.lines.find((l) => key in l)?.[key] as T | undefined;
    return { backend, count, importS, readyS: (find<number>('ready') ?? NaN) / 1000, storeS: (run.lines.find((l) => 'storeMs' in l)?.storeMs as number) / 1000, mem: find('memory'), single: find('single'), burst: find('burst'), floor: find('floor') };
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
}

const floorOf = (ms: number[], p: number) => percentile([...ms].sort((a, b) => a - b), p).toFixed(1);
const sorted = (p: Phase | undefined) => [...(p?.ms ?? [])].sort((a, b) => a - b);
const perChange = (p: Phase | undefined) => (p && p.changes > 0 ? p.bytes / p.changes : null);

function figuresOf(s: StoreSample): Figure[] {
  const tag = `${s.backend}, ${s.count} guests`;
  const id = `store.${s.backend}.${s.count}`;
  const sqlite = s.backend === 'sqlite';
  const single = sorted(s.single);
  const burst = sorted(s.burst);
  const target = (op: '<=', value: number, when: boolean) => (when ? { target: { op, value } } : {});
  return [
    { id: `${id}.ready`, name: `store ${tag}: start to Ready`, value: s.readyS ?? null, unit: 's', ...target('<=', 10, sqlite && s.count >= 100_000),
      detail: `${s.storeS?.toFixed(2)} s of it opening the store and listing into the informer${sqlite ? `; one-time import of store.json before that run: ${s.importS.toFixed(1)} s` : ''}` },
    { id: `${id}.rss`, name: `store ${tag}: RSS, every guest cached`, value: s.mem ? s.mem.rss / MB : null, unit: 'MB', ...target('<=', 150, sqlite && s.count <= 10_000) },
    { id: `${id}.heap`, name: `store ${tag}: heap used`, value: s.mem ? s.mem.heapUsed / MB : null, unit: 'MB' },
    { id: `${id}.write.p50`, name: `store ${tag}: single write p50`, value: single.length ? percentile(single, 50) : null, unit: 'ms' },
    { id: `${id}.write.p99`, name: `store ${tag}: single write p99`, value: single.length ? percentile(single, 99) : null, unit: 'ms', ...target('<=', 20, sqlite),
      detail: `${single.length} writes, one at a time${s.floor ? `; the disk's floor (bare one-row commits, synchronous=FULL): p50 ${floorOf(s.floor, 50)} ms, p99 ${floorOf(s.floor, 99)} ms` : ''}` },
    { id: `${id}.burst.p50`, name: `store ${tag}: 100-write burst p50`, value: burst.length ? percentile(burst, 50) : null, unit: 'ms' },
    { id: `${id}.burst.p99`, name: `store ${tag}: 100-write burst p99`, value: burst.length ? percentile(burst, 99) : null, unit: 'ms', detail: `${burst.length} bursts` },
    { id: `${id}.bytes`, name: `store ${tag}: bytes written per change (single)`, value: perChange(s.single), unit: 'B' },
    { id: `${id}.bytes-burst`, name: `store ${tag}: bytes written per change (burst)`, value: perChange(s.burst), unit: 'B' },
  ];
}

/** Bytes per change at the largest count over the smallest: 1 means independent of the object count. */
function growth(samples: StoreSample[], backend: Backend): Figure {
  const mine = samples.filter((s) => s.backend === backend).sort((a, b) => a.count - b.count);
  const [small, large] = [mine[0], mine[mine.length - 1]];
  const ratio = small && large && perChange(small.single) && perChange(large.single) ? (perChange(large.single) ?? 0) / (perChange(small.single) ?? 1) : null;
  return {
    id: `store.${backend}.bytes-growth`, name: `store ${backend}: bytes per change at ${large?.count} vs ${small?.count} guests`, value: ratio, unit: '×',
    ...(backend === 'sqlite' ? { target: { op: '<=' as const, value: 1.5 } } : {}),
  };
}

export async function runStore(o: { counts: number[]; deadline: number }): Promise<Figure[]> {
  const file = compiledBenchFile('store-proc.ts');
  const samples: StoreSample[] = [];
  for (const count of o.counts) {
    const seeded = tempDir('store-seed');
    try {
      await seedClonedGuests(count, seeded);
      for (const backend of BACKENDS) {
        process.stderr.write(`  store: ${backend}, ${count} guests\n`);
        samples.push(await sample(file, backend, count, seeded, o.deadline));
      }
    } finally {
      rmSync(seeded, { recursive: true, force: true });
    }
  }
  return [...samples.flatMap(figuresOf), ...BACKENDS.map((b) => growth(samples, b))];
}
