import { HypervisorError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { HealthCounters } from '../smapi/health.js';
import type { CallOptions } from '../port.js';
import { callTyped, type SmapiFunctionName, type SmapiParamsOf, type TypedSmapiResponse } from '../smapi/functions.js';
import { describeSmapiResult, isRetryable } from '../smapi/messages.js';
import type { SmapiCaller } from '../smapi/types.js';

/** An rc/rs pair a call may answer without it being a failure. */
export type RcRs = readonly [number, number];

/** rc/rs pairs that mean "already in the state you asked for" (docs/smapi.md §6.2). */
export const ALREADY = {
  active: [200, 8],
  inactive: [200, 12],
  deactivating: [200, 16],
  noEntry: [400, 4],
  noDisk: [208, 36],
  noNic: [404, 8],
  notCoupled: [212, 32],
  notLocked: [400, 24],
  locked: [400, 12],
} as const satisfies Record<string, RcRs>;

/**
 * One SMAPI call with the adapter's rules: rc 0 or an accepted pair is success (counted for
 * /smapi_health), anything else becomes a HypervisorError carrying rc/rs and a readable message.
 * Params and output are typed for the function (smapi/functions.ts SmapiFunctionMap).
 */
export type SmapiCall = <F extends SmapiFunctionName>(
  fn: F, target: string, params: SmapiParamsOf<F>, accept?: readonly RcRs[], opts?: CallOptions,
) => Promise<TypedSmapiResponse<F>>;

/** The one place a call is counted for /smapi_health and logged (debug: one line per call). */
export function createSmapiCall(deps: { caller: SmapiCaller; log: Logger; health: HealthCounters }): SmapiCall {
  return async (fn, target, params, accept = [], opts) => {
    const started = Date.now();
    let res: TypedSmapiResponse<typeof fn>;
    try {
      res = await callTyped(deps.caller, fn, target, params, { signal: opts?.signal });
    } catch (err) {
      deps.health.failure();
      deps.log.debug({ fn, userid: target, rc: err instanceof HypervisorError ? err.rc : undefined, ms: Date.now() - started }, 'smapi call');
      throw err;
    }
    deps.log.debug({ fn, userid: target, rc: res.rc, rs: res.rs, ms: Date.now() - started }, 'smapi call');
    if (res.rc === 0 || accept.some(([rc, rs]) => rc === res.rc && rs === res.rs)) {
      deps.health.success();
      return res;
    }
    deps.health.failure();
    throw new HypervisorError(fn, res.rc, res.rs, describeSmapiResult(fn, target, res.rc, res.rs), { retryable: isRetryable(res.rc, res.rs) });
  };
}
