import { Type, type TSchema } from '@sinclair/typebox';
import type { HvErrorFields } from '../errors.js';
import { isSmapiDown } from './feilong-error.js';

/** The sdkserver envelope, in the key order the reference emits (docs/rest-interface.md §0). */
export interface EnvelopeBody<T = unknown> {
  overallRC: number;
  modID: number | null;
  rc: number;
  rs: number;
  errmsg: string;
  output: T;
}

/** Response schema of an enveloped route; `output` is described per route (documentation and OpenAPI). */
export function Envelope<T extends TSchema>(output: T) {
  return Type.Object({
    overallRC: Type.Integer(),
    modID: Type.Union([Type.Integer(), Type.Null()]),
    rc: Type.Integer(),
    rs: Type.Integer(),
    errmsg: Type.String(),
    output,
  });
}

export const EmptyOutput = Type.Literal('', { description: 'no output' });

export function ok(): EnvelopeBody<''>;
export function ok<T>(output: T): EnvelopeBody<T>;
export function ok(output: unknown = ''): EnvelopeBody {
  return { overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '', output: output ?? '' };
}

export function errorEnvelope(fields: HvErrorFields): EnvelopeBody {
  return { overallRC: fields.overallRC, modID: fields.modID, rc: fields.rc, rs: fields.rs, errmsg: fields.errmsg, output: '' };
}

/** GET / answers with its own key order (docs/rest-interface.md §1.3 #1). */
export function okVersion<T>(output: T) {
  return { rs: 0, overallRC: 0, modID: null, rc: 0, errmsg: '', output };
}

/**
 * The body the reference's FaultWrapper writes (§2.3 A/B): overallRC and rc stay 400 whatever the
 * status, `rs` carries the HTTP status.
 */
export function faultBody(status: number, errmsg: string) {
  return { overallRC: 400, rc: 400, rs: status, modID: 120, output: '', errmsg };
}

/** 202 is ours: an operation still running past the operation timeout (feilongErrors.stillRunning). */
const PASS_THROUGH = new Set([202, 400, 404, 409, 501, 503]);

type Triple = readonly [number, number, number];
const NOT_FOUND: Triple[] = [[8, 212, 40], [4, 5, 402], [300, 300, 20], [8, 400, 4], [8, 200, 4]];
const ALREADY_EXISTS: Triple[] = [[8, 212, 36], [300, 300, 13], [8, 400, 8]];
const CONFLICT: Triple[] = [[300, 300, 5]];

function matches(list: Triple[], f: HvErrorFields): boolean {
  return list.some(([o, rc, rs]) => f.overallRC === o && f.rc === rc && f.rs === rs);
}

/**
 * HTTP status of an envelope (§2.2). The reference applies the not-found / already-exists /
 * conflict hooks per route; we apply all of them everywhere, so the same failure has one status
 * on every route (the reference answers 500 for some of them on DELETE, §9.3).
 */
export function computeHttpStatus(f: HvErrorFields): number {
  if (f.overallRC === 0) return 200;
  if (PASS_THROUGH.has(f.overallRC)) return f.overallRC;
  if (isSmapiDown(f)) return 503;
  if (f.overallRC === 100) return 400;
  if (matches(NOT_FOUND, f)) return 404;
  if (f.overallRC === 300 && f.rc === 300 && f.rs === 3 && f.errmsg.includes('not linked; not in CP directory')) return 404;
  if (matches(ALREADY_EXISTS, f) || matches(CONFLICT, f)) return 409;
  return 500;
}
