/**
 * The scale curve (issue 23): the standalone operator (SQLite store, controller runtime, SMAPI over
 * TCP) with N settled guests, then a fixed number of new guests created by 8 closed-loop clients
 * (create, wait for Ready, next). Per size: CPU per created guest, a create's p50 to Ready, RSS.
 * Flat per-guest cost from the smallest to the largest size is the target (no full scans on hot paths).
 * RSS is the whole bench process's: the simulator's state of every guest is in it too.
 * In-process like the fleet bench: the CPU includes the simulated host's share, the same per guest at
 * every size.
 */
import type { ZGuest } from '../src/api/index.js';
import { startBenchHost } from './lib/bench-host.js';
import { percentile, type Figure } from './lib/figures.js';
import { aBenchGuest, isReady, startWorld, tempDir, waitFor, waitQuiet } from './lib/operator-world.js';
import { guestName, seedSettledGuests } from './lib/seed.js';

const CLIENTS = 8;
const MB = 1024 * 1024;

interface Point {
  size: number;
  cpuMsPerGuest: number;
  p50Ms: number;
  rssMB: number;
  ready: number;
  seconds: number;
  /** lines the operator logged while the creates ran */
  logLines: number;
}

async function measureSize(size: number, o: { creates: number; latencyMs: number; concurrency: number; deadline: number; logLevel?: string }): Promise<Point> {
  const host = await startBenchHost({ latencyMs: 0, concurrency: o.concurrency });
  const stateDir = tempDir('scale');
  await seedSettledGuests(host.sim, size, stateDir);
  host.latencyMs = o.latencyMs;
  const world = await startWorld({ host, stateDir, concurrency: 16, poolSize: 12, logLevel: o.logLevel });
  try {
    await world.operator.guests.waitForSync();
    await waitQuiet(host, 1000, o.deadline); // the start-up look at every guest is over
    const latencies: number[] = [];
    let next = 0;
    let ready = 0;
    const client = async () => {
      for (let i = next++; i < o.creates && Date.now() < o.deadline; i = next++) {
        const name = guestName(size + i);
        const t0 = performance.now();
        await world.store.create<ZGuest>(aBenchGuest(name));
        const ok = await waitFor(() => {
          const g = world.operator.guests.get({ namespace: 'default', name });
          return g !== undefined && isReady(g);
        }, o.deadline, 10);
        if (ok) {
          ready++;
          latencies.push(performance.now() - t0);
        }
      }
    };
    const lines0 = world.logLines();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const cpu = process.cpuUsage(cpu0);
    return {
      size, ready, seconds: (performance.now() - t0) / 1000, logLines: world.logLines() - lines0,
      cpuMsPerGuest: (cpu.user + cpu.system) / 1000 / Math.max(1, ready),
      p50Ms: percentile(latencies.sort((a, b) => a - b), 50),
      rssMB: process.memoryUsage().rss / MB,
    };
  } finally {
    await world.stop();
    await host.close();
  }
}

export async function runScale(o: { sizes: number[]; creates: number; latencyMs: number; concurrency: number; deadline: number }): Promise<Figure[]> {
  const points: Point[] = [];
  const out: Figure[] = [];
  // unreported warm-up: the first size measured must not pay the JIT's compile time for all of them
  await measureSize(Math.min(...o.sizes), { ...o, creates: Math.min(50, o.creates) });
  for (const size of o.sizes) {
    const p = await measureSize(size, o);
    points.push(p);
    const invalid = p.ready < o.creates ? `${p.ready}/${o.creates} created guests Ready before the bound` : undefined;
    const detail = `${p.ready} guests created in ${p.seconds.toFixed(1)} s by ${CLIENTS} clients; create p50 ${p.p50Ms.toFixed(0)} ms; RSS ${p.rssMB.toFixed(0)} MB (bench process)`;
    out.push({ id: `scale.cpu.${size}`, name: `scale: CPU per guest created, ${size} guests`, value: p.cpuMsPerGuest, unit: 'ms', detail, ...(invalid ? { invalid } : {}) });
    out.push({ id: `scale.p50.${size}`, name: `scale: create p50 to Ready, ${size} guests`, value: p.p50Ms, unit: 'ms' });
    out.push({ id: `scale.rss.${size}`, name: `scale: RSS, ${size} guests`, value: p.rssMB, unit: 'MB' });
    process.stderr.write(`scale ${size}: ${detail}; CPU ${p.cpuMsPerGuest.toFixed(2)} ms/guest\n`);
  }
  const [small, large] = [points[0], points[points.length - 1]];
  if (small && large && small !== large) {
    out.push({
      id: 'scale.cpu.ratio', name: `scale: CPU per guest at ${large.size} ÷ at ${small.size}`, value: large.cpuMsPerGuest / small.cpuMsPerGuest, unit: 'ratio',
      target: { op: '<=', value: 1.5 }, detail: `create p50 ${large.p50Ms.toFixed(0)} vs ${small.p50Ms.toFixed(0)} ms`,
    });
  }
  return out;
}

/**
 * What logging costs (issue 23): the same creates as the scale curve's smallest size, with the
 * operator logging at each level into /dev/null. Info should cost about what warn does: per-call and
 * per-reconcile lines are debug; info keeps changes, failures and leases.
 */
export async function runLogCost(o: { size: number; creates: number; levels: string[]; latencyMs: number; concurrency: number; deadline: number }): Promise<Figure[]> {
  await measureSize(o.size, o); // warm-up, unreported: the first level measured must not pay the JIT's compile time
  const cpu = new Map<string, number>();
  const out: Figure[] = [];
  for (const level of o.levels) {
    const p = await measureSize(o.size, { ...o, logLevel: level });
    cpu.set(level, p.cpuMsPerGuest);
    const invalid = p.ready < o.creates ? `${p.ready}/${o.creates} created guests Ready before the bound` : undefined;
    out.push({
      id: `logs.cpu.${level}`, name: `logs: CPU per guest created at LOG_LEVEL=${level}`, value: p.cpuMsPerGuest, unit: 'ms',
      detail: `${p.ready} guests over ${o.size} in ${p.seconds.toFixed(1)} s; ${(p.logLines / Math.max(1, p.ready)).toFixed(1)} log lines per guest`, ...(invalid ? { invalid } : {}),
    });
  }
  const warn = cpu.get('warn');
  for (const level of ['info', 'debug']) {
    const at = cpu.get(level);
    if (warn === undefined || at === undefined) continue;
    out.push({
      id: `logs.ratio.${level}`, name: `logs: CPU per guest at ${level} ÷ at warn`, value: at / warn, unit: 'ratio',
      ...(level === 'info' ? { target: { op: '<=' as const, value: 1.1 } } : {}),
    });
  }
  return out;
}
