/**
 * The two follow-up protocols of a SMAPI call (docs/smapi.md §1.5, §1.6):
 * Response_Recovery when the reply was lost after the request id arrived, and
 * Query_Asynchronous_Operation_DM polling after rc 592.
 */
import { HypervisorError } from '../../errors.js';
import { decodeEmbeddedResult, encodeRequest } from './codec.js';
import type { RawResult } from './codec.js';
import type { SmapiAuth } from './types.js';
import { SmapiTransportError } from './transport.js';

export type Exchange = (frame: Buffer) => Promise<RawResult>;

export interface RecoveryOptions {
  auth: SmapiAuth;
  /** Target of Response_Recovery; zthin hard-codes MAINT. */
  target: string;
  attempts: number;
  delayMs: number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Sends `frame`; if the reply is lost after its request id arrived, asks for it with
 * Response_Recovery (the recovered bytes are the original reply). 4/4 (the server does not know
 * the id) → the original is sent again, once. Other failures propagate to the caller's retry loop.
 */
export async function exchangeRecovering(send: Exchange, frame: Buffer, o: RecoveryOptions): Promise<RawResult> {
  try {
    return await send(frame);
  } catch (err) {
    if (!(err instanceof SmapiTransportError) || err.requestId === undefined || err.kind === 'aborted') throw err;
    const recovered = await recover(send, err.requestId, o, err);
    return recovered ?? send(frame);
  }
}

/** The original reply, or undefined when the server says it has no such request (4/4). */
async function recover(send: Exchange, requestId: number, o: RecoveryOptions, original: SmapiTransportError): Promise<RawResult | undefined> {
  const frame = encodeRequest({ fn: 'Response_Recovery', target: o.target, params: { failed_request_id: requestId } }, o.auth);
  let last: unknown = original;
  for (let i = 0; i < o.attempts; i++) {
    await o.sleep(o.delayMs);
    try {
      const r = await send(frame);
      if (r.rc === 0) return decodeEmbeddedResult(r.output);
      if (r.rc === 4 && r.rs === 4) return undefined;
      throw new HypervisorError('Response_Recovery', r.rc, r.rs, `Response_Recovery of request ${requestId}: rc ${r.rc} rs ${r.rs}`);
    } catch (err) {
      if (!(err instanceof SmapiTransportError) || err.kind === 'aborted') throw err;
      last = err;
    }
  }
  throw last;
}

export interface AsyncPollOptions {
  intervalMs: number;
  maxPolls: number;
  sleep: (ms: number) => Promise<void>;
}

export type Query = (operationId: number) => Promise<{ rc: number; rs: number }>;

/** The operation id of an rc 592 reply: in rs, or (rs 0) in the first output int4; 0 = none. */
export function asyncOperationId(r: RawResult): number {
  if (r.rs !== 0) return r.rs;
  return r.output.length >= 4 ? r.output.readUInt32BE(0) : 0;
}

/**
 * Polls until the operation ends: rc 0 rs 0/100 → done ({rc 0, rs 0}); rs 104 → running;
 * rs 108 → HypervisorError; any other answer is returned as the call's result.
 */
export async function awaitAsyncOperation(fn: string, opId: number, query: Query, o: AsyncPollOptions): Promise<{ rc: number; rs: number }> {
  for (let i = 0; i < o.maxPolls; i++) {
    await o.sleep(o.intervalMs);
    const r = await query(opId);
    if (r.rc === 0 && (r.rs === 0 || r.rs === 100)) return { rc: 0, rs: 0 };
    if (r.rc === 0 && r.rs === 104) continue;
    if (r.rc === 0 && r.rs === 108) {
      throw new HypervisorError(fn, 0, 108, `${fn}: asynchronous operation ${opId} failed`);
    }
    return r;
  }
  throw new HypervisorError(fn, 592, opId, `${fn}: asynchronous operation ${opId} still running after ${o.maxPolls} polls`, { retryable: true });
}
