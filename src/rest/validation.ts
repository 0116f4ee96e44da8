import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { RequestValidationError } from './feilong-error.js';

/**
 * Request validation with feilong's error text (docs/rest-interface.md §2.3 A). Unlike fastify's default
 * ajv we never coerce types (digit strings for vcpus/memory crash the reference, §9.5) and never
 * strip unknown keys (closed schemas reject them).
 */
const ajv = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
type FormatsPlugin = (a: Ajv) => Ajv;
const addFormats = ((ajvFormats as unknown as { default?: FormatsPlugin }).default ?? (ajvFormats as unknown as FormatsPlugin));
addFormats(ajv);

export type HttpPart = 'body' | 'querystring' | 'params' | 'headers' | string;

/** A string enum with jsonschema's `is not one of` message (a union of literals reads worse). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** Python's repr, which the reference's messages use (`'abc' is too long`). */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** Python's str: strings bare, everything else as repr. */
function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** The value a JSON pointer names in `data` (undefined where it leads nowhere). */
export function valueAt(data: unknown, pointer: string): unknown {
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return cur;
}

function messageOf(e: ErrorObject, value: unknown): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return `'${String(p.missingProperty)}' is a required property`;
    case 'maxLength': case 'maxItems': return `${pyRepr(value)} is too long`;
    case 'minLength': case 'minItems': return `${pyRepr(value)} is too short`;
    case 'maximum': return `${pyRepr(value)} is greater than the maximum of ${String(p.limit)}`;
    case 'minimum': return `${pyRepr(value)} is less than the minimum of ${String(p.limit)}`;
    case 'pattern': return `${pyRepr(value)} does not match '${String(p.pattern)}'`;
    case 'type': return `${pyRepr(value)} is not of type ${String(p.type).split(',').map((t) => `'${t}'`).join(', ')}`;
    case 'additionalProperties': return `Additional properties are not allowed ('${String(p.additionalProperty)}' was unexpected)`;
    case 'enum': return `${pyRepr(value)} is not one of ${pyRepr(p.allowedValues)}`;
    case 'const': return `${pyRepr(p.allowedValue)} was expected`;
    case 'format': return `${pyRepr(value)} is not a '${String(p.format)}'`;
    case 'dependencies': case 'dependentRequired': return `'${String(p.missingProperty)}' is a dependency of '${String(p.property)}'`;
    case 'uniqueItems': return `${pyRepr(value)} has non-unique elements`;
    case 'anyOf': case 'oneOf': return `${pyRepr(value)} is not valid under any of the given schemas`;
    default: return e.message ?? 'is invalid';
  }
}

/** One ajv error as the reference words it; `part` decides "field/attribute" or "query parameters". */
export function formatValidationError(errors: ErrorObject[], data: unknown, part: HttpPart): string {
  const e = errors.find((x) => x.keyword === 'anyOf' || x.keyword === 'oneOf') ?? errors[0];
  if (!e) return 'Invalid request';
  const value = valueAt(data, e.instancePath);
  const message = messageOf(e, value);
  if (e.instancePath === '') return message;
  const path = e.instancePath.split('/').slice(1);
  // body errors name the innermost field; query/path errors the parameter (its values form a list)
  const field = (part === 'body' ? path.at(-1) : path[0]) ?? '';
  const where = part === 'body' ? 'field/attribute' : 'query parameters';
  return `Invalid input for ${where} ${field}. Value: ${pyStr(value)}. ${message}`;
}

const cache = new WeakMap<object, ValidateFunction>();

function compile(schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** Validates outside fastify's schema step (per-action bodies); throws RequestValidationError. */
export function validateOrThrow<T>(schema: TSchema, data: unknown, part: HttpPart = 'body'): T {
  const fn = compile(schema);
  if (!fn(data)) throw new RequestValidationError(formatValidationError(fn.errors ?? [], data, part));
  return data as T;
}

/** Marks a route schema that only documents (OpenAPI); the handler validates by itself. */
export const DOC_ONLY = 'x-doc-only';

/**
 * fastify validator compiler: same ajv, same messages, typed error to the one error handler. A route's
 * validator is compiled on its first request: compiling all ~100 at start held ~3 MB of generated code
 * in an idle process (test/unit/rest/route-schemas.test.ts compiles every one, so a bad schema still fails CI).
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if ((schema as Record<string, unknown>)[DOC_ONLY]) return (data: unknown) => ({ value: data });
  let fn: ValidateFunction | undefined;
  return (data: unknown) => {
    fn ??= compile(schema);
    return fn(data) ? { value: data } : { error: new RequestValidationError(formatValidationError(fn.errors ?? [], data, httpPart ?? 'body')) };
  };
};

