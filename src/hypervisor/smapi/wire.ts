/**
 * Primitive SMAPI encodings (docs/smapi.md §1.2): big-endian int1/int4/int8, `str`
 * (int4 length + bytes, no NUL), `cstr` (bytes + NUL). Text is latin1 so any byte survives a
 * decode/encode round trip.
 */
import { InvalidInputError } from '../../errors.js';

/**
 * Bytes that do not form a valid SMAPI frame or parameter list. `rc`/`rs` are what a SMAPI server
 * answers for it (900/20 length mismatch, 900/12 unknown function, 24/nn88 truncated parameter…).
 */
export class SmapiFrameError extends InvalidInputError {
  readonly rc: number;
  readonly rs: number;
  constructor(message: string, rc = 24, rs = 0, options?: { cause?: unknown }) {
    super(message, options);
    this.rc = rc;
    this.rs = rs;
  }
}

export class WireReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  get atEnd(): boolean {
    return this.pos >= this.buf.length;
  }

  private need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.buf.length) {
      throw new SmapiFrameError(`truncated ${what}: need ${n} bytes at offset ${this.pos}, have ${this.remaining}`);
    }
  }

  int1(): number {
    this.need(1, 'int1');
    return this.buf.readUInt8(this.pos++);
  }

  /** Unsigned, as lengths, counts and operation ids are. */
  uint4(): number {
    this.need(4, 'int4');
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** Signed, as rc and rs are. */
  int4(): number {
    this.need(4, 'int4');
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int8(): number {
    this.need(8, 'int8');
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return Number(v);
  }

  bytes(n: number): Buffer {
    this.need(n, 'bytes');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  fixed(n: number): string {
    return this.bytes(n).toString('latin1');
  }

  str(): string {
    const n = this.uint4();
    return this.fixed(n);
  }

  /** A NUL-terminated string; a missing final NUL at the end of the buffer is tolerated. */
  cstr(): string {
    const end = this.buf.indexOf(0, this.pos);
    const stop = end < 0 ? this.buf.length : end;
    const s = this.buf.toString('latin1', this.pos, stop);
    this.pos = end < 0 ? stop : stop + 1;
    return s;
  }

  /** A sub-reader over the next `n` bytes (for length-prefixed arrays and structures). */
  sub(n: number): WireReader {
    return new WireReader(this.bytes(n));
  }

  rest(): Buffer {
    return this.bytes(this.remaining);
  }
}

export class WireWriter {
  private readonly parts: Buffer[] = [];

  int1(v: number): this {
    this.parts.push(Buffer.from([v & 0xff]));
    return this;
  }

  /** Writes the low 32 bits; negative values (rc, operation id -1) become two's complement. */
  int4(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    this.parts.push(b);
    return this;
  }

  int8(v: number): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(v));
    this.parts.push(b);
    return this;
  }

  raw(s: string | Buffer): this {
    this.parts.push(typeof s === 'string' ? Buffer.from(s, 'latin1') : s);
    return this;
  }

  str(s: string): this {
    const b = Buffer.from(s, 'latin1');
    return this.int4(b.length).raw(b);
  }

  cstr(s: string): this {
    return this.raw(s).int1(0);
  }

  /** `int4 length` of what `body` writes, then those bytes. */
  prefixed(body: (w: WireWriter) => void): this {
    const inner = new WireWriter();
    body(inner);
    const b = inner.toBuffer();
    return this.int4(b.length).raw(b);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}
