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
}

async function measureSize(size: number, o: { creates: number; latencyMs: number; concurrency: number; deadline: number }): Promise<Point> {
  const host = await startBenchHost({ latencyMs: 0, concurrency: o.concurrency });
  const stateDir = tempDir('scale');
  await seedSettledGuests(host.sim, size, stateDir);
  host.latencyMs = o.latencyMs;
  const world = await startWorld({ host, stateDir, concurrency: 16, poolSize: 12 });
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
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const cpu = process.cpuUsage(cpu0);
    return {
      size, ready, seconds: (performance.now() - t0) / 1000,
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
