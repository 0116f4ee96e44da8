/**
 * Figure 2: apply N ZGuests at once and time until all are Ready, against the physical lower bound
 * of the host (calls × latency ÷ concurrency, with the calls counted in the same run); then the
 * same for deleting them all.
 */
import type { ZGuest } from '../src/api/index.js';
import { startBenchHost } from './lib/bench-host.js';
import type { Figure } from './lib/figures.js';
import { aBenchGuest, isReady, startWorld, waitFor } from './lib/operator-world.js';
import { guestName } from './lib/seed.js';

export async function runFleet(o: { count: number; latencyMs: number; concurrency: number; workers: number; poolSize: number; deadline: number }): Promise<Figure[]> {
  const host = await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency });
  const world = await startWorld({ host, persistent: true, concurrency: o.workers, poolSize: o.poolSize });
  const bound = (calls: number) => (calls * o.latencyMs) / o.concurrency / 1000;
  const config = `${o.workers} workers, ${o.poolSize} SMAPI connections`;
  try {
    await world.operator.guests.waitForSync();
    host.reset();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: o.count }, (_, i) => world.store.create<ZGuest>(aBenchGuest(guestName(i)))));
    const allReady = await waitFor(() => {
      const list = world.operator.guests.list();
      return list.length === o.count && list.every(isReady);
    }, o.deadline, 50);
    const createS = (performance.now() - t0) / 1000;
    const createCalls = host.total();
    const readyCount = world.operator.guests.list().filter(isReady).length;
    const createCounts = host.counts();
    const createSpan = host.span();

    host.reset();
    const t1 = performance.now();
    await Promise.all(Array.from({ length: o.count }, (_, i) => world.store.delete('ZGuest', { namespace: 'default', name: guestName(i) })));
    const allGone = await waitFor(() => world.operator.guests.list().length === 0, o.deadline, 50);
    const deleteS = (performance.now() - t1) / 1000;
    const deleteCalls = host.total();
    return [
      {
        id: `fleet.create.w${o.workers}-p${o.poolSize}`, name: `fleet: ${o.count} guests to Ready ÷ bound (${config})`, value: allReady ? createS / bound(createCalls) : null, unit: 'ratio',
        target: { op: '<=', value: 1.25 },
        detail: `first call after ${(((createSpan?.first ?? t0) - t0) / 1000).toFixed(1)} s, last at ${(((createSpan?.last ?? t0) - t0) / 1000).toFixed(1)} s; ${createS.toFixed(1)} s for ${readyCount}/${o.count} Ready; ${createCalls} calls (${(createCalls / o.count).toFixed(1)}/guest) → bound ${bound(createCalls).toFixed(1)} s; ${JSON.stringify(createCounts)}`,
      },
      {
        id: `fleet.delete.w${o.workers}-p${o.poolSize}`, name: `fleet: delete ${o.count} guests ÷ bound (${config})`, value: allGone ? deleteS / bound(deleteCalls) : null, unit: 'ratio',
        target: { op: '<=', value: 1.25 },
        detail: `${deleteS.toFixed(1)} s; ${deleteCalls} calls → bound ${bound(deleteCalls).toFixed(1)} s; ${JSON.stringify(host.counts())}`,
      },
    ];
  } finally {
    await world.stop();
    await host.close();
  }
}

/**
 * The transport's own floor: N no-op calls issued at once through the TCP client, ÷ the same
 * bound. Above 1 by the connection set-up and tear-down of SMAPI's one-request-per-connection
 * protocol while the client holds a pool slot; more client connections than server workers hide it.
 */
export async function runSmapiFloor(o: { calls: number; latencyMs: number; concurrency: number; poolSizes: number[] }): Promise<Figure[]> {
  const host = await startBenchHost({ latencyMs: o.latencyMs, concurrency: o.concurrency });
  const out: Figure[] = [];
  try {
    for (const pool of o.poolSizes) {
      const client = host.client(pool);
      const t0 = performance.now();
      await Promise.all(Array.from({ length: o.calls }, () => client.call('Image_Query_DM', 'MAINT', {})));
      const s = (performance.now() - t0) / 1000;
      const bound = (o.calls * o.latencyMs) / o.concurrency / 1000;
      out.push({ id: `smapi.floor.p${pool}`, name: `SMAPI TCP path alone: ${o.calls} calls ÷ bound (${pool} connections)`, value: s / bound, unit: 'ratio', detail: `${s.toFixed(2)} s vs ${bound.toFixed(2)} s` });
    }
  } finally {
    await host.close();
  }
  return out;
}
