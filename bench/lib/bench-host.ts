/**
 * The simulated z/VM host every benchmark talks to: createSimHost behind createSmapiServer on
 * loopback, reached with the real SMAPI TCP client. The latency model (issue 6): a fixed delay
 * per call, spent while holding one of `concurrency` server workers, so the host serves at most
 * concurrency ÷ latency calls per second, like a SMAPI server's worker pool.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createSimHost, type SimConfig, type SimHost } from '../../src/hypervisor/sim/index.js';
import { createSmapiClient, createSmapiServer, type SmapiClient, type SmapiServer } from '../../src/hypervisor/smapi/index.js';
import type { SmapiRequest } from '../../src/hypervisor/smapi/types.js';
import { BENCH_AUTH } from './bench-auth.js';

export { BENCH_AUTH };

export interface BenchHostOptions {
  latencyMs: number;
  concurrency: number;
  sim?: Partial<SimConfig>;
}

export interface BenchHost {
  readonly port: number;
  readonly sim: SimHost;
  /** changeable between phases (e.g. 0 while seeding, the model's value while measuring) */
  latencyMs: number;
  readonly concurrency: number;
  /** calls per SMAPI function since the last reset, as the server saw them */
  counts(): Record<string, number>;
  total(): number;
  /** performance.now() of the first and last call since the last reset */
  span(): { first: number; last: number } | undefined;
  reset(): void;
  /** a TCP client with the pool size of the operator's adapter */
  client(poolSize?: number): SmapiClient;
  close(): Promise<void>;
}

export async function startBenchHost(o: BenchHostOptions): Promise<BenchHost> {
  const sim = createSimHost({ ...o.sim });
  let counts = new Map<string, number>();
  let span: { first: number; last: number } | undefined;
  const host = {
    latencyMs: o.latencyMs,
  };
  const handler = {
    async handle(req: SmapiRequest) {
      counts.set(req.fn, (counts.get(req.fn) ?? 0) + 1);
      const now = performance.now();
      span = span ? { first: span.first, last: now } : { first: now, last: now };
      // inside the server's worker semaphore: a worker is busy for the whole call
      if (host.latencyMs > 0) await sleep(host.latencyMs);
      return sim.handle(req);
    },
  };
  const server: SmapiServer = await createSmapiServer({ handler, auth: BENCH_AUTH, host: '127.0.0.1', port: 0, concurrency: o.concurrency });
  const clients: SmapiClient[] = [];
  return {
    port: server.port,
    sim,
    concurrency: o.concurrency,
    get latencyMs() {
      return host.latencyMs;
    },
    set latencyMs(ms: number) {
      host.latencyMs = ms;
    },
    counts: () => Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b))),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    span: () => span,
    reset: () => {
      counts = new Map();
      span = undefined;
    },
    client(poolSize = o.concurrency) {
      const c = createSmapiClient({ host: '127.0.0.1', port: server.port, auth: BENCH_AUTH, poolSize, timeoutMs: 120_000 });
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await sim.close();
    },
  };
}
