/** Reads the captured SMAPI vectors (test/fixtures/smapi-vectors, see its README.md). */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { SMAPI_VECTORS } from '../../../fixtures/paths.js';

export const VECTORS_DIR = process.env.SMAPI_VECTORS_DIR ?? SMAPI_VECTORS;

export interface Vector {
  api: string;
  case: number;
  kwargs: Record<string, unknown>;
  parsed: Record<string, unknown>;
  request: Buffer;
  response: Buffer;
  requestId: number;
  returnCode: number | null;
  reasonCode: number | null;
  notes?: string[];
}

interface RawVector {
  api: string;
  case: number;
  kwargs: Record<string, unknown>;
  parsed: Record<string, unknown>;
  request_b64: string;
  response_b64: string;
  request_id: number;
  return_code: number | null;
  reason_code: number | null;
  notes?: string[];
}

/** `{b64}` values (raw bytes) become latin1 strings, the codec's representation of bytes. */
export function unbinary(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unbinary);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Object.keys(o).length === 1 && typeof o.b64 === 'string') return Buffer.from(o.b64, 'base64').toString('latin1');
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unbinary(x)]));
  }
  return v;
}

export function loadVectors(api: string): Vector[] {
  const dir = join(VECTORS_DIR, api);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const raw = JSON.parse(readFileSync(join(dir, f), 'utf8')) as RawVector;
    return {
      api: raw.api, case: raw.case, notes: raw.notes,
      kwargs: unbinary(raw.kwargs) as Record<string, unknown>,
      parsed: unbinary(raw.parsed) as Record<string, unknown>,
      request: Buffer.from(raw.request_b64, 'base64'),
      response: Buffer.from(raw.response_b64, 'base64'),
      requestId: raw.request_id, returnCode: raw.return_code, reasonCode: raw.reason_code,
    };
  });
}
