/**
 * The SMAPI TCP client (docs/smapi.md §1): one request per connection, at most `poolSize`
 * connections at once, a timeout per exchange, Response_Recovery when a reply is lost after its
 * request id, polling of asynchronous (rc 592) directory operations, and retries with capped
 * exponential backoff for transient failures (messages.ts `isRetryable`).
 *
 * Non-zero rc values that are not transient are returned as rc/rs: what "already in that state"
 * means is the adapter's business (see `raiseFor`). Transport failures that survive every retry
 * throw a retryable HypervisorError with a negative rc (messages.ts TRANSPORT_RC).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import type tls from 'node:tls';
import { HypervisorError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { createHealthCounters } from './health.js';
import type { HypervisorHealth } from '../port.js';
import { decodeOutput, encodeRequest } from './codec.js';
import type { RawResult } from './codec.js';
import { callTyped, type SmapiFunctionName, type SmapiParamsOf, type TypedSmapiResponse } from './functions.js';
import { isRetryable, TRANSPORT_RC } from './messages.js';
import { createSmapiMetrics } from './metrics.js';
import { asyncOperationId, awaitAsyncOperation, exchangeRecovering } from './recovery.js';
import { createSemaphore } from './semaphore.js';
import { exchange, SmapiTransportError } from './transport.js';
import type { SmapiAuth, SmapiCallOptions, SmapiCaller, SmapiParams, SmapiResponse } from './types.js';

export interface SmapiClientOptions {
  host: string;
  port: number;
  tls?: boolean | tls.ConnectionOptions;
  /** pins the SMAPI server certificate (see transport.ts Endpoint.tlsCertSha256) */
  tlsCertSha256?: string;
  auth: SmapiAuth;
  /** Most connections open at once (SMAPI serves a limited worker pool). Default 4. */
  poolSize?: number;
  /** Per exchange (connect → reply). Default 240 s, as feilong's smapi_socket_timeout. */
  timeoutMs?: number;
  /** Extra attempts after a transient failure. Default 3. */
  retries?: number;
  /** First backoff; doubles per retry up to maxBackoffMs. Default 500 ms / 15 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Query_Asynchronous_Operation_DM interval and count. Default 15 s × 12, as smcli. */
  asyncPollMs?: number;
  asyncMaxPolls?: number;
  /** Target of Response_Recovery (default MAINT), attempts (default 8) and delay before each (default 2 s). */
  recoveryTarget?: string;
  recoveryAttempts?: number;
  recoveryDelayMs?: number;
  metrics?: Registry;
  /** the ZHost this client serves: the `host` label of its metrics (default: `host`, the address) */
  name?: string;
  log?: Logger;
  /** see Endpoint: connect from this address; refuse to send when this throws (host fencing) */
  localAddress?: string;
  beforeSend?: () => void;
}

export interface SmapiClient extends SmapiCaller {
  /** `call` with params and output typed for the function. */
  callFn<F extends SmapiFunctionName>(fn: F, target: string, params: SmapiParamsOf<F>, opts?: SmapiCallOptions): Promise<TypedSmapiResponse<F>>;
  /**
   * The wire's own counters (a transport failure or a transient rc left after the retries fails), healthy while
   * fewer than 20 calls in a row failed. /smapi_health reports the adapter's (zvm/call.ts), which also counts an
   * rc its caller did not accept.
   */
  health(): HypervisorHealth;
}

const TRANSPORT_KIND_RC = {
  refused: TRANSPORT_RC.refused,
  timeout: TRANSPORT_RC.timeout,
  closed: TRANSPORT_RC.read,
  io: TRANSPORT_RC.read,
  protocol: TRANSPORT_RC.read,
  aborted: TRANSPORT_RC.notResponding,
} as const;

function toHypervisorError(fn: string, err: SmapiTransportError): HypervisorError {
  const cause = err.kind === 'timeout' ? new TimeoutError(err.message, { cause: err }) : err;
  return new HypervisorError(fn, TRANSPORT_KIND_RC[err.kind], 0, `${fn}: ${err.message}`, { retryable: err.kind !== 'aborted', cause });
}

export function createSmapiClient(o: SmapiClientOptions): SmapiClient {
  const log = (o.log ?? silentLogger()).child({ component: 'smapi-client', host: o.host });
  const pool = createSemaphore(o.poolSize ?? 4);
  const metrics = createSmapiMetrics(o.name ?? o.host, pool, o.metrics);
  const health = createHealthCounters();
  const retries = o.retries ?? 3;
  const backoff = (attempt: number): number => Math.min((o.backoffMs ?? 500) * 2 ** attempt, o.maxBackoffMs ?? 15_000);
  let closed = false;

  async function once(fn: string, target: string, frame: Buffer, opts: SmapiCallOptions): Promise<RawResult> {
    const timeoutMs = opts.timeoutMs ?? o.timeoutMs ?? 240_000;
    const send = (f: Buffer): Promise<RawResult> => exchange(o, f, timeoutMs, opts.signal);
    const sleep = (ms: number): Promise<void> => delay(ms, undefined, { signal: opts.signal });
    return pool.run(() => exchangeRecovering(send, frame, {
      auth: o.auth, target: o.recoveryTarget ?? 'MAINT', attempts: o.recoveryAttempts ?? 8,
      delayMs: o.recoveryDelayMs ?? 2000, sleep,
    }), opts.signal);
  }

  /** Sends with retries; returns the last reply (transient or not) or throws the last transport failure. */
  async function withRetries(fn: string, target: string, frame: Buffer, opts: SmapiCallOptions): Promise<RawResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await once(fn, target, frame, opts);
        if (!isRetryable(r.rc, r.rs) || attempt >= retries) return r;
        log.debug({ fn, target, rc: r.rc, rs: r.rs, attempt }, 'transient SMAPI result, retrying');
      } catch (err) {
        if (!(err instanceof SmapiTransportError) || err.kind === 'aborted' || attempt >= retries) throw err;
        log.debug({ fn, target, err, attempt }, 'SMAPI transport failure, retrying');
      }
      await delay(backoff(attempt), undefined, { signal: opts.signal });
    }
  }

  async function settleAsync(fn: string, target: string, r: RawResult, opts: SmapiCallOptions): Promise<{ rc: number; rs: number }> {
    const opId = asyncOperationId(r);
    if (r.rc !== 592 || opId === 0) return r;
    const query = async (operation_id: number) => {
      const frame = encodeRequest({ fn: 'Query_Asynchronous_Operation_DM', target, params: { operation_id } }, o.auth);
      return withRetries('Query_Asynchronous_Operation_DM', target, frame, opts);
    };
    return awaitAsyncOperation(fn, opId, query, {
      intervalMs: o.asyncPollMs ?? 15_000, maxPolls: o.asyncMaxPolls ?? 12,
      sleep: (ms) => delay(ms, undefined, { signal: opts.signal }),
    });
  }

  async function call(fn: string, target: string, params: SmapiParams = {}, callerOpts: SmapiCallOptions = {}): Promise<SmapiResponse> {
    if (closed) throw new HypervisorError(fn, TRANSPORT_RC.notResponding, 0, `${fn}: SMAPI client is closed`);
    // A signal of its own per call: waiting for a connection, the exchange and the back-off listen on it,
    // not on the caller's, which many concurrent calls share (MaxListenersExceededWarning otherwise).
    const opts = callerOpts.signal ? { ...callerOpts, signal: AbortSignal.any([callerOpts.signal]) } : callerOpts;
    const frame = encodeRequest({ fn, target, params }, o.auth);
    const started = performance.now();
    let rc: number = TRANSPORT_RC.notResponding;
    try {
      const raw = await withRetries(fn, target, frame, opts);
      const done = await settleAsync(fn, target, raw, opts);
      rc = done.rc;
      const resp = { rc: done.rc, rs: done.rs, output: decodeOutput(fn, raw.output, raw.rc, raw.rs) };
      if (resp.rc === 0 || !isRetryable(resp.rc, resp.rs)) health.success();
      else health.failure();
      return resp;
    } catch (err) {
      health.failure();
      if (err instanceof SmapiTransportError) {
        const hv = toHypervisorError(fn, err);
        rc = hv.rc;
        throw hv;
      }
      if (err instanceof HypervisorError) rc = err.rc;
      throw err;
    } finally {
      // the per-call log line is the adapter's (zvm/call.ts), which sees every caller
      metrics.observe(fn, rc, (performance.now() - started) / 1000);
    }
  }

  const client: SmapiClient = {
    call,
    callFn: (fn, target, params, opts) => callTyped(client, fn, target, params, opts),
    health: () => health.snapshot(),
    async close() {
      closed = true;
      metrics.close();
    },
  };
  return client;
}
