import type { SmapiCaller, SmapiHandler, SmapiParams, SmapiResponse } from './smapi/types.js';

export interface InProcessCallerDeps {
  handler: SmapiHandler;
  /** counts calls per function, for benchmarks and tests */
  onCall?: (fn: string) => void;
}

/**
 * A SmapiCaller that hands requests straight to a SmapiHandler (the simulator) in the same process.
 * Standalone mode and fast tests use it; the TCP client is the same contract over the real wire.
 */
export function createInProcessCaller(deps: InProcessCallerDeps): SmapiCaller {
  let closed = false;
  return {
    async call(fn: string, target: string, params: SmapiParams = {}): Promise<SmapiResponse> {
      if (closed) throw new Error('SMAPI caller is closed');
      deps.onCall?.(fn);
      // structuredClone keeps the simulator's state from aliasing caller objects, as a wire would.
      return structuredClone(await deps.handler.handle({ fn, target, params: structuredClone(params) }));
    },
    async close() {
      closed = true;
    },
  };
}
