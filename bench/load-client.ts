/**
 * A small HTTP load generator, run as its own process (autocannon is not installed): `workers`
 * concurrent loops with keep-alive fetch (undici), bounded by a request count and a duration.
 * Prints one JSON line: requests, errors, seconds, req/s and latency percentiles in ms.
 *
 *   node <compiled bench>/bench/load-client.js '<json LoadSpec>'   (bench/lib/child.ts compiles it)
 */
import { percentile } from './lib/figures.js';

export interface LoadSpec {
  base: string;
  method: 'GET' | 'POST';
  /** {id} is replaced by ids[k % ids.length] for the k-th request */
  path: string;
  ids?: string[];
  /** POST bodies cycle per pass over ids: pass p uses bodies[p % bodies.length] */
  bodies?: unknown[];
  workers: number;
  durationMs: number;
  maxRequests: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const ids = spec.ids ?? [''];
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + spec.durationMs;
  async function worker(): Promise<void> {
    while (performance.now() < deadline && next < spec.maxRequests) {
      const k = next++;
      const id = ids[k % ids.length];
      const body = spec.bodies ? JSON.stringify(spec.bodies[Math.floor(k / ids.length) % spec.bodies.length]) : undefined;
      const t0 = performance.now();
      try {
        const res = await fetch(`${spec.base}${spec.path.replace('{id}', id)}`, {
          method: spec.method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body,
        });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 400) errors += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: spec.workers }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length, errors, statuses, seconds, rps: latencies.length / seconds,
    p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? 0,
  };
}

// compiled (bench/lib/child.ts runs the .js) or through tsx
if (/load-client\.[jt]s$/.test(process.argv[1] ?? '') && process.argv[2]) {
  const result = await runLoad(JSON.parse(process.argv[2]) as LoadSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
