/**
 * Turns what the Kubernetes API answers (a metav1.Status, an HTTP status, a network failure) into the
 * project's typed errors (src/errors.ts), so callers of the StateStore never see HTTP.
 */
import { ApiException } from '@kubernetes/client-node';
import {
  AlreadyExistsError,
  ConflictError,
  GoneError,
  InvalidInputError,
  InvalidSpecError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  ZvmError,
  type SchemaIssue,
} from '../../errors.js';

/** The parts of a metav1.Status this adapter reads. */
export interface KubeStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: {
    name?: string;
    kind?: string;
    causes?: Array<{ field?: string; message?: string; reason?: string }>;
  };
}

/** What went wrong, as far as the API said: an HTTP code (0 for no answer at all) and maybe a Status. */
export interface ApiFailure {
  code: number;
  status?: KubeStatus;
}

/** `create` tells a 409 apart: an existing name, not a stale resourceVersion. */
export type Operation = 'create' | 'read' | 'write';

function parseStatus(body: unknown): KubeStatus | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined; // a plain-text body ("404 page not found") carries nothing more than the code
    }
  }
  return typeof value === 'object' && value !== null ? (value as KubeStatus) : undefined;
}

/** Reads the HTTP code and Status out of whatever client-node threw; undefined when it is no API answer. */
export function apiFailureOf(err: unknown): ApiFailure | undefined {
  if (err instanceof ApiException) return { code: err.code, status: parseStatus(err.body) };
  // client-node's Watch rejects with a plain Error carrying `statusCode` for a non-200 answer.
  const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number') return { code: statusCode };
  return undefined;
}

/**
 * A Kubernetes field path ("spec.disks[0].size", "metadata.labels[a.b/c]") as the JSON pointer the
 * schema validator uses ("/spec/disks/0/size"), so both kinds of error name fields the same way.
 */
export function fieldToPointer(field: string | undefined): string {
  if (!field || field === '<nil>') return '/';
  const segments: string[] = [];
  for (const match of field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) segments.push(match[1] ?? match[2] ?? '');
  return segments.length === 0 ? '/' : `/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

function issuesOf(status: KubeStatus | undefined): SchemaIssue[] {
  const causes = status?.details?.causes ?? [];
  if (causes.length === 0) return [{ path: '/', message: status?.message ?? 'invalid' }];
  return causes.map((c) => ({ path: fieldToPointer(c.field), message: c.message ?? c.reason ?? 'invalid' }));
}

/** Maps an API failure to a typed error; `what` names the object ("ZGuest ns/name") for the message. */
export function errorFromFailure(failure: ApiFailure, what: string, op: Operation, cause?: unknown): ZvmError {
  const { code, status } = failure;
  const detail = status?.message ? `: ${status.message}` : '';
  const message = `${what}${detail}`;
  const options = { cause };
  switch (code) {
    case 404:
      return new NotFoundError(`${what} not found${detail}`, options);
    case 409:
      if (op === 'create' || status?.reason === 'AlreadyExists') return new AlreadyExistsError(`${what} already exists${detail}`, options);
      return new ConflictError(`${what}: conflict${detail}`, options);
    case 422:
      return new InvalidSpecError(`invalid ${message}`, issuesOf(status), options);
    case 400:
      return new InvalidInputError(`bad request for ${message}`, options);
    case 410:
      return new GoneError(`${what}: resourceVersion expired${detail}`, options);
    case 401:
    case 403:
      return new UnauthorizedError(`not allowed: ${message}`, options);
    case 504:
      return new TimeoutError(`timed out: ${message}`, options);
    default:
      if (code === 429 || code >= 500 || code === 0) return new ZvmError('UNAVAILABLE', `Kubernetes API unavailable (${code || 'no answer'}) for ${message}`, options);
      return new ZvmError('INTERNAL', `unexpected HTTP ${code} for ${message}`, options);
  }
}

/** Any error out of client-node as a typed error: API answers mapped by code, anything else (network) UNAVAILABLE. */
export function toStoreError(err: unknown, what: string, op: Operation): ZvmError {
  if (err instanceof ZvmError) return err;
  const failure = apiFailureOf(err);
  if (failure) return errorFromFailure(failure, what, op, err);
  const reason = err instanceof Error ? err.message : String(err);
  return new ZvmError('UNAVAILABLE', `Kubernetes API unreachable for ${what}: ${reason}`, { cause: err });
}

/** True when a 404 is about the object, not about the resource type (CRD not installed, wrong group). */
export function isObjectNotFound(err: unknown, name: string): boolean {
  const failure = apiFailureOf(err);
  return failure?.code === 404 && failure.status?.details?.name === name;
}
