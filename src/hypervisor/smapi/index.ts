/**
 * The SMAPI wire layer: codec (frames and per-function bodies), TCP client, TCP server, the
 * typed function map and rc/rs messages. Only `hypervisor/` imports this (docs/code-conventions.md §2).
 */
export type * from './types.js';
export type * from './functions.js';
export { callTyped, SYNC_OPERATION_ID } from './functions.js';
export {
  decodeEmbeddedResult, decodeOutput, decodeParams, decodeRequest, decodeRequestHeader, decodeResponse,
  decodeResultRaw, encodeOutput, encodeParams, encodeRequest, encodeRequestId, encodeResponse, encodeResult,
  encodeResultRaw, MAX_FRAME_BYTES,
} from './codec.js';
export type { DecodedRequest, DecodedResponse, RawResult, RequestHeader } from './codec.js';
export { isSupportedFunction, SUPPORTED_FUNCTIONS } from './layouts.js';
export { SmapiFrameError } from './wire.js';
export { SmapiTransportError } from './transport.js';
export { describeRcRs, describeSmapiResult, isRetryable, raiseFor, TRANSPORT_RC } from './messages.js';
export { createSmapiClient } from './client.js';
export type { SmapiClient, SmapiClientOptions } from './client.js';
export { createSmapiServer } from './server.js';
export type { SmapiAuthCheck, SmapiServer, SmapiServerOptions } from './server.js';
export type { SmapiFaults } from './server-faults.js';
export { createInProcessCaller, type InProcessCallerDeps } from './in-process-caller.js';
export { registerSmapiMetrics } from './metrics.js';
