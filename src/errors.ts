/**
 * One error model for the whole product (docs/code-conventions.md §3). Errors say what went wrong,
 * never which HTTP status to send: the REST error handler maps `code` to the feilong envelope.
 */
export type ErrorCode =
  | 'HYPERVISOR'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'CONFLICT'
  | 'INVALID_SPEC'
  | 'INVALID_INPUT'
  | 'TIMEOUT'
  | 'GONE'
  | 'UNAUTHORIZED'
  | 'NOT_SUPPORTED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export class ZvmError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The fields of a hypervisor failure exactly as the host (and feilong's envelope) report them. */
export interface HvErrorFields {
  overallRC: number;
  rc: number;
  rs: number;
  modID: number;
  errmsg: string;
}

/** A SMAPI (or CP) call that did not succeed. `fn` is the SMAPI function name. */
export class HypervisorError extends ZvmError {
  readonly fn: string;
  readonly rc: number;
  readonly rs: number;
  readonly retryable: boolean;
  constructor(fn: string, rc: number, rs: number, message: string, options?: { retryable?: boolean; cause?: unknown }) {
    super('HYPERVISOR', message, options);
    this.fn = fn;
    this.rc = rc;
    this.rs = rs;
    this.retryable = options?.retryable ?? false;
  }
  /**
   * No SMAPI answer came at all: refused, timed out, the connection dropped (the client's negative
   * transport rc, smapi/messages.ts). An abort is ours, not retryable, and not counted.
   */
  get unanswered(): boolean {
    return this.rc < 0 && this.retryable;
  }
  /** feilong reports SMAPI failures with overallRC 8 and modID 1 (SMT layer). */
  toFields(): HvErrorFields {
    return { overallRC: 8, rc: this.rc, rs: this.rs, modID: 1, errmsg: this.message };
  }
}

export class NotFoundError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NOT_FOUND', message, options);
  }
}

export class AlreadyExistsError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ALREADY_EXISTS', message, options);
  }
}

/** resourceVersion conflicts, userid claims, operations the current state forbids. */
export class ConflictError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, options);
  }
}

export interface SchemaIssue {
  path: string;
  message: string;
}

/** A resource that does not satisfy its schema; carries every issue with its schema path. */
export class InvalidSpecError extends ZvmError {
  readonly issues: SchemaIssue[];
  constructor(message: string, issues: SchemaIssue[], options?: { cause?: unknown }) {
    super('INVALID_SPEC', message, options);
    this.issues = issues;
  }
}

/** Bad input that is not a whole resource (a REST field, a CLI flag). */
export class InvalidInputError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_INPUT', message, options);
  }
}

export class TimeoutError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TIMEOUT', message, options);
  }
}

/** A watch asked for a resourceVersion the store no longer remembers (HTTP 410): re-list. */
export class GoneError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GONE', message, options);
  }
}

export class UnauthorizedError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('UNAUTHORIZED', message, options);
  }
}

export class NotSupportedError extends ZvmError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NOT_SUPPORTED', message, options);
  }
}

export function isZvmError(err: unknown): err is ZvmError {
  return err instanceof ZvmError;
}
