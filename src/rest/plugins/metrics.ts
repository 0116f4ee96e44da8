import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { registerOnce } from '../../metrics.js';

/**
 * zvm_rest_requests_total and zvm_rest_request_duration_seconds by route template (`/guests/:userid`,
 * never the concrete path: bounded label values), method and status. A request no route
 * matched counts under route "unmatched".
 */
export function registerRestMetrics(registry: Registry) {
  const labelNames = ['route', 'method', 'status'] as const;
  return {
    requests: registerOnce(registry, 'zvm_rest_requests_total', (registers) => new Counter({
      name: 'zvm_rest_requests_total', help: 'REST requests answered, by route template, method and HTTP status', labelNames, registers,
    })),
    duration: registerOnce(registry, 'zvm_rest_request_duration_seconds', (registers) => new Histogram({
      name: 'zvm_rest_request_duration_seconds', help: 'REST request duration (including waits for the controller), by route template, method and HTTP status',
      labelNames, registers, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    })),
  };
}

export function instrumentRest(app: FastifyInstance, registry: Registry | undefined): void {
  if (!registry) return;
  const { requests, duration } = registerRestMetrics(registry);
  // a callback hook: on every request's path, where an async one costs a promise and a microtask turn
  app.addHook('onResponse', (req, reply, done) => {
    const labels = { route: req.routeOptions.url ?? 'unmatched', method: req.method, status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
