/** The shape of a per-function output codec, and helpers shared by the output codec files. */
import type { SmapiOutput } from './types.js';
import type { WireReader } from './wire.js';
import { WireWriter } from './wire.js';

/** rc/rs of the reply being decoded or encoded: some outputs depend on them (error buffers). */
export interface ReplyContext {
  rc: number;
  rs: number;
}

export interface OutputCodec<O extends object = SmapiOutput> {
  /** Reads the bytes after rc/rs. Only called when there are some. */
  decode(r: WireReader, ctx: ReplyContext): O;
  /** Writes the bytes after rc/rs; writes nothing for an output without its fields. */
  encode(w: WireWriter, o: O, ctx: ReplyContext): void;
  /** The output of a header-only reply (12 bytes: reqid, rc, rs). */
  empty?(): O;
}

/** Erases the precise output type so codecs fit one table; each codec stays typed inside. */
export function codec<O extends object>(c: OutputCodec<O>): OutputCodec<SmapiOutput> {
  return c as unknown as OutputCodec<SmapiOutput>;
}

/** Functions without output (and a lenient decoder: unexpected bytes are ignored). */
export const noOutput = codec<Record<string, never>>({
  decode: () => ({}),
  encode: () => undefined,
});

export function readCstrs(r: WireReader): string[] {
  const out: string[] = [];
  while (!r.atEnd) out.push(r.cstr());
  return out;
}

export function writeCstrs(w: WireWriter, items: readonly string[]): void {
  for (const s of items) w.cstr(s);
}

/** `int4 total bytes` followed by what `read` consumes from exactly those bytes. */
export function readPrefixed<T>(r: WireReader, read: (sub: WireReader) => T): T {
  return read(r.sub(r.uint4()));
}

/** Repeats `read` until the (sub-)reader is exhausted. */
export function readAll<T>(r: WireReader, read: (r: WireReader) => T): T[] {
  const out: T[] = [];
  while (!r.atEnd) out.push(read(r));
  return out;
}

export function prefixedList<T>(w: WireWriter, items: readonly T[], write: (w: WireWriter, item: T) => void): void {
  w.prefixed((a) => items.forEach((item) => write(a, item)));
}

export function newWriter(): WireWriter {
  return new WireWriter();
}
