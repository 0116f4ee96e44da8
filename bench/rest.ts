/**
 * Figure 4: the REST sidecar at N guests, loaded from a second process over loopback (keep-alive
 * fetch, bench/load-client.ts): GET /guests (answered from state), GET /guests/{id}/info (a live
 * read: its floor is its SMAPI calls × latency) and POST /guests/{id}/action stop/start (a spec
 * write that waits for the controller).
 */
import { NotFoundError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { createRestApp } from '../src/rest/index.js';
import { startBenchHost } from './lib/bench-host.js';
import { compiledBenchFile, runChild } from './lib/child.js';
import type { Figure } from './lib/figures.js';
import { startWorld, tempDir, waitQuiet } from './lib/operator-world.js';
import { guestName, seedSettledGuests } from './lib/seed.js';
import type { LoadResult, LoadSpec } from './load-client.js';

interface Scenario {
  id: string;
  name: string;
  spec: Omit<LoadSpec, 'base'>;
  /** SMAPI calls one request needs at the least (0: answered from state) */
  floorCalls: number;
  /** which targets of a read from state this run is held to: throughput (many clients) or latency (few) */
  holds?: 'rps' | 'p99';
}

async function load(base: string, spec: Omit<LoadSpec, 'base'>, timeoutMs: number): Promise<LoadResult | undefined> {
  const run = await runChild(compiledBenchFile('load-client.ts'), [JSON.stringify({ ...spec, base })], { timeoutMs });
  return run.lines[0] as unknown as LoadResult | undefined;
}

export async function runRest(o: { count: number; latencyMs: number; concurrency: number; workers: number; poolSize: number; seconds: number; deadline: number }): Promise<Figure[]> {
  const host = await startBenchHost({ latencyMs: 0, concurrency: o.concurrency });
  const stateDir = tempDir('rest');
  await seedSettledGuests(host.sim, o.count, stateDir);
  host.latencyMs = o.latencyMs;
  const world = await startWorld({ host, stateDir, concurrency: o.workers, poolSize: o.poolSize });
  const app = createRestApp({
    store: world.store,
    log: silentLogger(),
    guestIndex: world.operator.guests,
    hypervisors: {
      forHost(name) {
        const hv = world.hosts.forHost(name);
        if (!hv) throw new NotFoundError(`ZHost ${name} is not known`);
        return hv;
      },
    },
    config: { namespace: 'default', defaultHost: 'default', auth: { enabled: false } },
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const ids = Array.from({ length: o.count }, (_, i) => guestName(i).toUpperCase());
  const ms = o.seconds * 1000;
  const scenarios: Scenario[] = [
    { id: 'rest.list', name: 'GET /guests (16 clients)', spec: { method: 'GET', path: '/guests', workers: 16, durationMs: ms, maxRequests: 200_000 }, floorCalls: 0, holds: 'rps' },
    { id: 'rest.list-4', name: 'GET /guests (4 clients)', spec: { method: 'GET', path: '/guests', workers: 4, durationMs: ms, maxRequests: 200_000 }, floorCalls: 0, holds: 'p99' },
    { id: 'rest.info', name: 'GET /guests/{id}/info', spec: { method: 'GET', path: '/guests/{id}/info', ids, workers: 16, durationMs: ms, maxRequests: 50_000 }, floorCalls: 1 },
    {
      id: 'rest.action', name: 'POST /guests/{id}/action stop|start',
      spec: { method: 'POST', path: '/guests/{id}/action', ids, bodies: [{ action: 'stop' }, { action: 'start' }], workers: 16, durationMs: ms, maxRequests: 50_000 },
      floorCalls: 1,
    },
  ];
  const figures: Figure[] = [];
  try {
    await world.operator.guests.waitForSync();
    await waitQuiet(host, 500, Math.min(o.deadline, Date.now() + 20_000));
    for (const s of scenarios) {
      host.reset();
      const r = await load(base, s.spec, Math.max(5000, o.deadline - Date.now()));
      if (!r) {
        figures.push({ id: `${s.id}.rps`, name: `REST ${s.name}: req/s`, value: null, unit: 'req/s', detail: 'the load generator reported nothing' });
        continue;
      }
      const callsPerReq = r.requests ? host.total() / r.requests : 0;
      const fromState = s.floorCalls === 0;
      const rpsTarget = s.holds === 'rps' ? { target: { op: '>=' as const, value: 3000 } } : {};
      const p99Target = s.holds === 'p99' ? { target: { op: '<' as const, value: 10 } } : {};
      const detail = `${r.requests} requests in ${r.seconds.toFixed(1)} s, ${r.errors} errors ${JSON.stringify(r.statuses)}; ${callsPerReq.toFixed(2)} SMAPI calls/request ${JSON.stringify(host.counts())}; max ${r.max.toFixed(1)} ms`;
      figures.push({ id: `${s.id}.rps`, name: `REST ${s.name}: req/s`, value: r.rps, unit: 'req/s', ...rpsTarget, detail });
      figures.push({ id: `${s.id}.p50`, name: `REST ${s.name}: p50`, value: r.p50, unit: 'ms' });
      figures.push({ id: `${s.id}.p99`, name: `REST ${s.name}: p99`, value: r.p99, unit: 'ms', ...p99Target });
      if (!fromState) {
        // the host bounds a live request: its calls at the model's latency, and the pool's throughput
        const floorMs = callsPerReq * o.latencyMs;
        const maxRps = (o.concurrency * 1000) / o.latencyMs / Math.max(callsPerReq, 1e-9);
        figures.push({ id: `${s.id}.p50-vs-floor`, name: `REST ${s.name}: p50 ÷ (calls × latency)`, value: r.p50 / floorMs, unit: 'ratio', detail: `floor ${floorMs.toFixed(0)} ms` });
        figures.push({ id: `${s.id}.rps-vs-host`, name: `REST ${s.name}: req/s ÷ host capacity`, value: r.rps / maxRps, unit: 'ratio', detail: `host capacity ${maxRps.toFixed(0)} req/s at ${callsPerReq.toFixed(2)} calls/request` });
      }
    }
  } finally {
    await app.close();
    await world.stop();
    await host.close();
  }
  return figures;
}
