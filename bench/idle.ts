/**
 * Figure 3: with N settled guests and nothing changing, the hypervisor calls the operator makes,
 * per resync period and host (a short resync period so that a window holds several), and how long
 * a power change made behind the operator's back takes to show in status.
 */
import { startBenchHost } from './lib/bench-host.js';
import type { Figure } from './lib/figures.js';
import { startWorld, tempDir, waitFor, waitQuiet } from './lib/operator-world.js';
import { guestName, seedSettledGuests } from './lib/seed.js';

export async function runIdle(o: { count: number; latencyMs: number; concurrency: number; resyncMs: number; windowMs: number; deadline: number }): Promise<Figure[]> {
  const host = await startBenchHost({ latencyMs: 0, concurrency: o.concurrency });
  const stateDir = tempDir('idle');
  await seedSettledGuests(host.sim, o.count, stateDir);
  host.latencyMs = o.latencyMs;
  const world = await startWorld({ host, stateDir, resyncMs: o.resyncMs });
  try {
    await world.operator.guests.waitForSync();
    await waitQuiet(host, Math.min(o.resyncMs / 2, 1000), Math.min(o.deadline, Date.now() + 30_000));
    const startupCalls = host.total();
    host.reset();
    await new Promise((r) => setTimeout(r, o.windowMs));
    const calls = host.total();
    const counts = host.counts();
    const periods = o.windowMs / o.resyncMs;
    const perPeriod = calls / periods;
    // the drift detector's share: its one batched power query per period (its directory list runs only at start)
    const guestSide = (counts.Image_Status_Query ?? 0) / periods;

    // drift: log one guest off behind the operator's back
    const victim = guestName(Math.floor(o.count / 2));
    await host.sim.handle({ fn: 'Image_Deactivate', target: victim.toUpperCase(), params: { force_time: 'IMMED' } });
    const t0 = performance.now();
    const seen = await waitFor(() => host.sim.queryUser(victim.toUpperCase()) === 'on', o.deadline, 20);
    const detectS = (performance.now() - t0) / 1000;
    return [
      {
        id: 'idle.calls-per-period', name: `idle: calls per resync period per host (${o.count} Ready guests)`, value: perPeriod, unit: 'calls',
        target: { op: '<=', value: 1 },
        detail: `${calls} calls in ${(o.windowMs / 1000).toFixed(0)} s with resync ${o.resyncMs / 1000} s = ${((calls / o.windowMs) * 60_000).toFixed(1)} calls/min; ${JSON.stringify(counts)}; start-up cost ${startupCalls} calls`,
      },
      {
        id: 'idle.guest-drift-per-period', name: 'idle: of which ZGuest drift detection, per period per host', value: guestSide, unit: 'calls',
        target: { op: '<=', value: 1 },
        detail: 'Image_Status_Query of the drift detector; any other call is host-level (ZHost facts are read when a host appears, its spec changes or a day has passed)',
      },
      {
        id: 'idle.drift-repair', name: 'idle: external logoff repaired (s, ≤ 1 resync period + calls)', value: seen ? detectS : null, unit: 's',
        detail: `guest ${victim} logged off behind the operator's back; back on after ${detectS.toFixed(1)} s (resync ${o.resyncMs / 1000} s)`,
      },
    ];
  } finally {
    await world.stop();
    await host.close();
  }
}
