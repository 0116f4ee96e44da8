/**
 * Parameter layouts: what follows the target identifier in a request, per function
 * (docs/smapi.md §1.9). A layout is a list of fields; the same list drives the client's
 * encoder and the server's decoder, so the two cannot drift apart.
 */
import type { SmapiParams } from './types.js';
import { SmapiFrameError, WireReader, WireWriter } from './wire.js';

export type ParamField =
  | { k: 'str'; name: string; optional?: boolean }
  | { k: 'int1' | 'int4'; name: string }
  /** int4 total + repeated (int4 len + text): directory records. */
  | { k: 'recarray'; name: string }
  /** int4 total + NUL-terminated strings, kept as a list (directory keyword items). */
  | { k: 'list4'; name: string }
  /** NUL-terminated strings to the end, no count, kept as a list. */
  | { k: 'cstrs'; name: string }
  /** key=value NUL-terminated items, one param field per key; `total` = leading int4 byte count. */
  | { k: 'kv'; total: boolean }
  /** Image_Pause's single raw keyword. */
  | { k: 'pause' };

function asString(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function asNumber(name: string, v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n)) throw new SmapiFrameError(`parameter ${name} must be an integer, got ${String(v)}`);
  return n;
}

function asList(name: string, v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new SmapiFrameError(`parameter ${name} must be a list of strings`);
  return v.map(asString);
}

/** kv keys come from the params object in insertion order; empty values are not sent. */
function writeKv(w: WireWriter, params: SmapiParams): void {
  for (const [key, value] of Object.entries(params)) {
    const s = asString(value);
    if (s !== '') w.cstr(`${key}=${s}`);
  }
}

function writeField(w: WireWriter, f: ParamField, params: SmapiParams): void {
  switch (f.k) {
    case 'str': return void w.str(asString(params[f.name]));
    case 'int1': return void w.int1(asNumber(f.name, params[f.name]));
    case 'int4': return void w.int4(asNumber(f.name, params[f.name]));
    case 'recarray':
      return void w.prefixed((a) => asList(f.name, params[f.name]).forEach((rec) => a.str(rec)));
    case 'list4':
      return void w.prefixed((a) => asList(f.name, params[f.name]).forEach((item) => a.cstr(item)));
    case 'cstrs': return void asList(f.name, params[f.name]).forEach((item) => w.cstr(item));
    case 'kv': return void (f.total ? w.prefixed((a) => writeKv(a, params)) : writeKv(w, params));
    case 'pause': return void w.cstr(`action=${asString(params.action)}`);
  }
}

export function encodeParamsWith(layout: readonly ParamField[], params: SmapiParams): Buffer {
  const w = new WireWriter();
  for (const f of layout) writeField(w, f, params);
  return w.toBuffer();
}

function readCstrList(r: WireReader): string[] {
  const out: string[] = [];
  while (!r.atEnd) out.push(r.cstr());
  return out;
}

/** Keys are trimmed of leading blanks: feilong sends items such as " OWNER=YES". */
function readKv(r: WireReader, into: SmapiParams): void {
  for (const item of readCstrList(r)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new SmapiFrameError(`keyword item without key=value: ${JSON.stringify(item)}`);
    into[item.slice(0, eq).trimStart()] = item.slice(eq + 1);
  }
}

/** zthin sends `PAUSE=YES|NO` without a NUL, pysmapi `action=pause\0`: both mean the same. */
function readPause(r: WireReader, into: SmapiParams): void {
  const raw = r.rest().toString('latin1').replace(/\0$/, '');
  const eq = raw.indexOf('=');
  const key = raw.slice(0, eq).trim().toUpperCase();
  const value = raw.slice(eq + 1).trim();
  if (eq <= 0 || (key !== 'ACTION' && key !== 'PAUSE')) {
    throw new SmapiFrameError(`Image_Pause expects action=… or PAUSE=YES|NO, got ${JSON.stringify(raw)}`);
  }
  into.action = key === 'ACTION' ? value : value.toUpperCase() === 'NO' ? 'unpause' : 'pause';
}

function readField(r: WireReader, f: ParamField, into: SmapiParams): void {
  switch (f.k) {
    case 'str': {
      const s = r.str();
      if (s !== '' || !f.optional) into[f.name] = s;
      return;
    }
    case 'int1': return void (into[f.name] = r.int1());
    case 'int4': return void (into[f.name] = r.uint4());
    case 'recarray': {
      const a = r.sub(r.uint4());
      const recs: string[] = [];
      while (!a.atEnd) recs.push(a.str());
      return void (into[f.name] = recs);
    }
    case 'list4': return void (into[f.name] = readCstrList(r.sub(r.uint4())));
    case 'cstrs': return void (into[f.name] = readCstrList(r));
    case 'kv': return readKv(f.total ? r.sub(r.uint4()) : r, into);
    case 'pause': return readPause(r, into);
  }
}

/**
 * Decodes a parameter body. Failures carry SMAPI's syntax-error code: rc 24 with
 * rs = parameter number × 100 + 88 (unexpected end of data) or + 25 (extraneous data).
 */
export function decodeParamsWith(fn: string, layout: readonly ParamField[], body: Buffer): SmapiParams {
  const r = new WireReader(body);
  const out: SmapiParams = {};
  layout.forEach((f, i) => {
    try {
      readField(r, f, out);
    } catch (err) {
      if (err instanceof SmapiFrameError && err.rc === 24 && err.rs !== 0) throw err;
      throw new SmapiFrameError(`${fn}: parameter ${i + 1} is malformed`, 24, (i + 1) * 100 + 88, { cause: err });
    }
  });
  if (!r.atEnd) {
    throw new SmapiFrameError(`${fn}: ${r.remaining} extraneous bytes after the parameters`, 24, (layout.length + 1) * 100 + 25);
  }
  return out;
}
