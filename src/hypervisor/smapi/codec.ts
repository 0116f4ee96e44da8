/**
 * SMAPI frames (docs/smapi.md §1.3, §1.4) and the per-function bodies inside them.
 *
 * Request:  int4 length, str function, str userid, str password, str target, params.
 * Response: int4 request id (phase 1), then int4 length, int4 request id, int4 rc, int4 rs, output.
 */
import type { SmapiFunctionName } from './functions.js';
import { LAYOUTS, isSupportedFunction } from './layouts.js';
import { decodeParamsWith, encodeParamsWith } from './params.js';
import type { SmapiAuth, SmapiOutput, SmapiParams, SmapiRequest, SmapiResponse } from './types.js';
import { SmapiFrameError, WireReader, WireWriter } from './wire.js';

/** Largest request or response body we accept; SMAPI answers 900/36 beyond its range. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

function layoutOf(fn: string) {
  if (!isSupportedFunction(fn)) throw new SmapiFrameError(`function ${fn} is not supported`, 900, 12);
  return LAYOUTS[fn];
}

export function encodeParams(fn: SmapiFunctionName | string, params: SmapiParams = {}): Buffer {
  return encodeParamsWith(layoutOf(fn).params, params);
}

export function decodeParams(fn: SmapiFunctionName | string, body: Buffer): SmapiParams {
  return decodeParamsWith(fn, layoutOf(fn).params, body);
}

/** The bytes after rc/rs for `output`; nothing when the output has none of its fields. */
export function encodeOutput(fn: SmapiFunctionName | string, output: SmapiOutput, rc = 0, rs = 0): Buffer {
  const w = new WireWriter();
  layoutOf(fn).output.encode(w, output, { rc, rs });
  return w.toBuffer();
}

/**
 * Decodes the bytes after rc/rs. Every output part is optional on failure (docs/smapi.md §1.4), so a
 * failed call whose bytes do not parse yields `{}`; a successful one throws SmapiFrameError.
 */
export function decodeOutput(fn: SmapiFunctionName | string, bytes: Buffer, rc = 0, rs = 0): SmapiOutput {
  const codec = layoutOf(fn).output;
  if (bytes.length === 0) return codec.empty?.() ?? {};
  try {
    return codec.decode(new WireReader(bytes), { rc, rs });
  } catch (err) {
    if (rc !== 0) return {};
    throw new SmapiFrameError(`${fn}: malformed output (${(err as Error).message})`, 900, 28, { cause: err });
  }
}

export function encodeRequest(req: SmapiRequest, auth: SmapiAuth): Buffer {
  const params = encodeParams(req.fn, req.params);
  return new WireWriter()
    .prefixed((w) => w.str(req.fn).str(auth.userid).str(auth.password).str(req.target).raw(params))
    .toBuffer();
}

/** The common header of a request; `body` is the function-specific rest, not yet decoded. */
export interface RequestHeader {
  fn: string;
  userid: string;
  password: string;
  target: string;
  body: Buffer;
}

/** Decodes a whole request frame (length field included) up to the parameters. */
export function decodeRequestHeader(frame: Buffer): RequestHeader {
  if (frame.length < 4) throw new SmapiFrameError(`request of ${frame.length} bytes has no length field`, 900, 20);
  const length = frame.readUInt32BE(0);
  if (length > MAX_FRAME_BYTES) throw new SmapiFrameError(`request length ${length} out of range`, 900, 36);
  if (length !== frame.length - 4) {
    throw new SmapiFrameError(`request length field ${length} but ${frame.length - 4} bytes follow`, 900, 20);
  }
  const r = new WireReader(frame.subarray(4));
  try {
    return { fn: r.str(), userid: r.str(), password: r.str(), target: r.str(), body: r.rest() };
  } catch (err) {
    throw new SmapiFrameError('request header strings overrun the frame', 900, 20, { cause: err });
  }
}

export interface DecodedRequest {
  req: SmapiRequest;
  auth: SmapiAuth;
}

export function decodeRequest(frame: Buffer): DecodedRequest {
  const h = decodeRequestHeader(frame);
  return {
    req: { fn: h.fn, target: h.target, params: decodeParams(h.fn, h.body) },
    auth: { userid: h.userid, password: h.password },
  };
}

/** Phase 1: the request id alone, sent as soon as the request is accepted. */
export function encodeRequestId(requestId: number): Buffer {
  return new WireWriter().int4(requestId).toBuffer();
}

/** Phase 2 from already-encoded output bytes: int4 length, reqid, rc, rs, output. */
export function encodeResultRaw(requestId: number, rc: number, rs: number, output: Buffer): Buffer {
  return new WireWriter().prefixed((w) => w.int4(requestId).int4(rc).int4(rs).raw(output)).toBuffer();
}

/** Phase 2 of the response for `fn`. */
export function encodeResult(fn: string, requestId: number, resp: SmapiResponse): Buffer {
  return encodeResultRaw(requestId, resp.rc, resp.rs, encodeOutput(fn, resp.output, resp.rc, resp.rs));
}

/** Both phases together, as captured in the vectors. */
export function encodeResponse(fn: string, requestId: number, resp: SmapiResponse): Buffer {
  return Buffer.concat([encodeRequestId(requestId), encodeResult(fn, requestId, resp)]);
}

export interface RawResult {
  requestId: number;
  rc: number;
  rs: number;
  output: Buffer;
}

/** Decodes phase 2 (length field included) without interpreting the output bytes. */
export function decodeResultRaw(frame: Buffer): RawResult {
  if (frame.length < 16) throw new SmapiFrameError(`response of ${frame.length} bytes is shorter than its header`, 900, 20);
  const length = frame.readUInt32BE(0);
  if (length !== frame.length - 4) {
    throw new SmapiFrameError(`response length field ${length} but ${frame.length - 4} bytes follow`, 900, 20);
  }
  const r = new WireReader(frame.subarray(4));
  return { requestId: r.uint4(), rc: r.int4(), rs: r.int4(), output: r.rest() };
}

/** The body of a Response_Recovery answer (or any length-less reply): reqid, rc, rs, output. */
export function decodeEmbeddedResult(bytes: Buffer): RawResult {
  if (bytes.length < 12) throw new SmapiFrameError(`embedded reply of ${bytes.length} bytes is too short`, 900, 20);
  const r = new WireReader(bytes);
  return { requestId: r.uint4(), rc: r.int4(), rs: r.int4(), output: r.rest() };
}

export interface DecodedResponse {
  requestId: number;
  resp: SmapiResponse;
}

/** Decodes both phases (as captured): request id, then the result frame. */
export function decodeResponse(fn: string, bytes: Buffer): DecodedResponse {
  if (bytes.length < 4) throw new SmapiFrameError('response has no request id', 900, 20);
  const raw = decodeResultRaw(bytes.subarray(4));
  const first = bytes.readUInt32BE(0);
  if (first !== raw.requestId) {
    throw new SmapiFrameError(`request id ${first} in phase 1 but ${raw.requestId} in phase 2`, 900, 20);
  }
  return { requestId: raw.requestId, resp: { rc: raw.rc, rs: raw.rs, output: decodeOutput(fn, raw.output, raw.rc, raw.rs) } };
}
