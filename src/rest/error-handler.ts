import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { HypervisorError, isZvmError, type HvErrorFields } from '../errors.js';
import { computeHttpStatus, errorEnvelope, faultBody } from './envelope.js';
import { BadRequestError, FeilongError, ModID, RequestValidationError, feilongErrors } from './feilong-error.js';

export const UNAUTHORIZED_TEXT =
  'This server could not verify that you are authorized to access the document you requested. Either you supplied the wrong credentials (e.g., bad password), or your browser does not understand how to supply the credentials required.';
export const INTERNAL_TEXT = 'The server has either erred or is incapable of performing the requested operation.';

export interface ErrorReply {
  status: number;
  body: object;
}

function fromFields(fields: HvErrorFields): ErrorReply {
  return { status: computeHttpStatus(fields), body: errorEnvelope(fields) };
}

function fields(overallRC: number, rs: number, errmsg: string, modID: number = ModID.guest): HvErrorFields {
  return { overallRC, modID, rc: overallRC, rs, errmsg };
}

/**
 * SMAPI rc 24 is a syntax error in a parameter the request supplied: bad input, so a 4xx. A live
 * read that got no answer says SMAPI is down, as a refused write does (feilongErrors.smapiDown).
 */
function fromHypervisor(err: HypervisorError): ErrorReply {
  if (err.unanswered) return fromFields(feilongErrors.smapiDown(`SMAPI did not answer: ${err.message}`).fields);
  const reply = fromFields(err.toFields());
  return err.rc === SMAPI_PARAMETER_SYNTAX ? { ...reply, status: 400 } : reply;
}

const SMAPI_PARAMETER_SYNTAX = 24;

/** Typed errors of src/errors.ts, by `code`, to the reference's envelope (docs/rest-interface.md §2). */
function fromZvmError(err: Error & { code: string }): ErrorReply | undefined {
  if (err instanceof RequestValidationError) return { status: 400, body: faultBody(400, `ValidationError: Validation error: ${err.message}`) };
  if (err instanceof BadRequestError) return { status: 400, body: faultBody(400, err.message) };
  if (err instanceof FeilongError) return fromFields(err.fields);
  if (err instanceof HypervisorError) return fromHypervisor(err);
  switch (err.code) {
    case 'UNAUTHORIZED': return { status: 401, body: faultBody(401, UNAUTHORIZED_TEXT) };
    case 'NOT_FOUND': return fromFields(fields(404, 1, err.message));
    case 'ALREADY_EXISTS': return fromFields(fields(409, 1, err.message));
    case 'CONFLICT': return fromFields(fields(409, 1, err.message));
    case 'INVALID_SPEC':
    case 'INVALID_INPUT': return fromFields(feilongErrors.invalidArg(err.message).fields);
    case 'NOT_SUPPORTED': return fromFields(fields(501, 1, err.message));
    case 'UNAVAILABLE': return fromFields(fields(503, 1, err.message, ModID.sdkwsgi));
    case 'TIMEOUT': return fromFields({ overallRC: 500, modID: ModID.sdkwsgi, rc: 500, rs: 2, errmsg: err.message });
    default: return undefined;
  }
}

/** A body fastify has no parser for (wrong or missing Content-Type): say which header every JSON route takes. */
const MEDIA_TYPE_TEXT = 'Unsupported Media Type: send the request body as JSON with the header `Content-Type: application/json`';

/** Fastify's own client errors (content type, body size, content length) keep their 4xx status. */
function fromFrameworkError(err: Error & { statusCode?: number; code?: string }): ErrorReply | undefined {
  const status = err.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  return { status, body: faultBody(status, err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? MEDIA_TYPE_TEXT : err.message) };
}

export function computeErrorReply(err: unknown): ErrorReply {
  if (isZvmError(err)) {
    const reply = fromZvmError(err);
    if (reply) return reply;
  } else if (err instanceof Error) {
    const reply = fromFrameworkError(err);
    if (reply) return reply;
  }
  return { status: 500, body: faultBody(500, INTERNAL_TEXT) };
}

/**
 * The one error handler (docs/code-conventions.md §3): every failure becomes an envelope. Only a failure
 * nobody expected (not one of our errors, or INTERNAL) is logged as an error with its stack; an expected
 * refusal with a 5xx (501 not supported, 503 host unreachable, a SMAPI failure) is a warning without one.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const { status, body } = computeErrorReply(err);
    const expected = isZvmError(err) && err.code !== 'INTERNAL';
    if (status >= 500 && !expected) req.log.error({ err }, 'request failed');
    else if (status >= 500) req.log.warn({ status, code: (err as { code?: string }).code, errmsg: (err as Error).message }, 'request refused');
    else req.log.debug({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'request rejected');
    return reply.code(status).type('application/json').send(body);
  });
}

/** Node's parser errors before any route runs, by code: status and the envelope's errmsg. */
function clientErrorReply(code: string | undefined): { status: number; errmsg: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, errmsg: 'Request Header Fields Too Large: the request line and headers exceed the server limit (16 KiB)' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, errmsg: 'Request Timeout: the request did not arrive in time' };
  return { status: 400, errmsg: `Bad Request: the request could not be parsed (${code ?? 'unknown error'})` };
}

/**
 * fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (e.g. a 60 kB URL) gets the JSON
 * Fault envelope like any other 4xx, written on the raw socket since no request object exists.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, errmsg } = clientErrorReply(err.code);
  const body = JSON.stringify(faultBody(status, errmsg));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\ncache-control: no-cache\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
