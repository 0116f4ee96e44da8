import type { Registry } from 'prom-client';
import { createSmapiMetrics } from './metrics.js';
import { TRANSPORT_RC } from './messages.js';
import type { SmapiCaller, SmapiHandler, SmapiParams, SmapiResponse } from './types.js';

export interface InProcessCallerDeps {
  handler: SmapiHandler;
  /** counts calls per function, for benchmarks and tests */
  onCall?: (fn: string) => void;
  /** the zvm_smapi_* metrics of this host, as the TCP client reports them (calls in flight are the connections in use) */
  metrics?: { registry: Registry; host: string };
}

/**
 * A SmapiCaller that hands requests straight to a SmapiHandler (the simulator) in the same process.
 * Standalone mode and fast tests use it; the TCP client is the same contract over the real wire.
 */
export function createInProcessCaller(deps: InProcessCallerDeps): SmapiCaller {
  let closed = false;
  const inFlight = { active: 0, waiting: 0 };
  const metrics = createSmapiMetrics(deps.metrics?.host ?? '', inFlight, deps.metrics?.registry);
  return {
    async call(fn: string, target: string, params: SmapiParams = {}): Promise<SmapiResponse> {
      if (closed) throw new Error('SMAPI caller is closed');
      deps.onCall?.(fn);
      const started = performance.now();
      let rc: number = TRANSPORT_RC.notResponding;
      inFlight.active++;
      try {
        // structuredClone keeps the simulator's state from aliasing caller objects, as a wire would.
        const reply = structuredClone(await deps.handler.handle({ fn, target, params: structuredClone(params) }));
        rc = reply.rc;
        return reply;
      } finally {
        inFlight.active--;
        metrics.observe(fn, rc, (performance.now() - started) / 1000);
      }
    },
    async close() {
      closed = true;
      metrics.close();
    },
  };
}
