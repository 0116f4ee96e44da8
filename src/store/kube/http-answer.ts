/**
 * Reads one HTTP/1.1 answer off a kept-alive connection, chunk by chunk as the socket delivers it
 * (http-pool.ts): the status line and headers, then a body framed by Content-Length, by chunked
 * transfer coding, or by the end of the connection. Pure: bytes in, an answer out.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface HttpAnswer {
  status: number;
  statusMessage: string;
  /** lower-case names; a repeated header's values joined with ", " */
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** the connection may carry the next request */
  reusable: boolean;
}

const CRLF = Buffer.from('\r\n');
const EMPTY = Buffer.alloc(0);
const HEAD_END = Buffer.from('\r\n\r\n');
/** larger heads are refused: an apiserver's answer heads are a few hundred bytes */
const MAX_HEAD_BYTES = 64 * 1024;

type Framing = { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

export class HttpAnswerError extends Error {
  readonly code = 'HPE_INVALID';
}

function parseHead(text: string): { status: number; statusMessage: string; headers: IncomingHttpHeaders } {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (!m) throw new HttpAnswerError(`not an HTTP/1.1 status line: ${JSON.stringify((lines[0] ?? '').slice(0, 40))}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpAnswerError(`bad header line: ${JSON.stringify(line.slice(0, 40))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(m[1]), statusMessage: m[2] ?? '', headers };
}

function framingOf(status: number, headers: IncomingHttpHeaders, method: string): Framing {
  if (method === 'HEAD' || status === 204 || status === 304) return { kind: 'length', left: 0 };
  const te = String(headers['transfer-encoding'] ?? '').toLowerCase();
  if (te.split(',').map((s) => s.trim()).at(-1) === 'chunked') return { kind: 'chunked' };
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (!Number.isSafeInteger(n) || n < 0) throw new HttpAnswerError(`bad Content-Length ${String(headers['content-length'])}`);
    return { kind: 'length', left: n };
  }
  return { kind: 'close' };
}

/**
 * One answer's reader: push() each chunk the socket delivers; it returns the answer once it is
 * complete (bytes past it are refused: one request at a time per connection), end() when the
 * connection ended (completes a body framed by the connection's end, else throws). A streamed
 * answer hands its body out as it comes and completes with an empty one.
 */
export class HttpAnswerReader {
  private pending: Buffer = EMPTY;
  private head?: { status: number; statusMessage: string; headers: IncomingHttpHeaders; framing: Framing; close: boolean };
  private readonly body: Buffer[] = [];
  /** chunked: bytes of the current chunk still to come (then its CRLF), or -1 while a size line is awaited, -2 in the trailer */
  private chunkLeft = -1;

  /** the body's bytes go here as they arrive, not into the answer (a watch); chosen by the status once the head is read */
  private sink?: (bytes: Buffer) => void;

  /** `streamFor`: for a streamed answer (a watch), where its body's bytes go, by its status; undefined keeps the body whole. */
  constructor(
    private readonly method: string,
    private readonly streamFor?: (status: number) => ((bytes: Buffer) => void) | undefined,
  ) {}

  /** the answer's body is being streamed: its head said so */
  get streaming(): boolean {
    return this.sink !== undefined;
  }

  push(chunk: Buffer): HttpAnswer | undefined {
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.head && !this.readHead()) return undefined;
    return this.readBody();
  }

  end(): HttpAnswer {
    const h = this.head;
    if (h?.framing.kind === 'close') return this.answer(false);
    throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  }

  private readHead(): boolean {
    for (;;) {
      const at = this.pending.indexOf(HEAD_END);
      if (at < 0) {
        if (this.pending.length > MAX_HEAD_BYTES) throw new HttpAnswerError('answer head too large');
        return false;
      }
      const { status, statusMessage, headers } = parseHead(this.pending.subarray(0, at).toString('latin1'));
      this.pending = this.pending.subarray(at + HEAD_END.length);
      // an interim answer (100 Continue) is followed by the real one
      if (status >= 100 && status < 200) continue;
      const close = String(headers.connection ?? '').toLowerCase().includes('close');
      this.head = { status, statusMessage, headers, framing: framingOf(status, headers, this.method), close };
      this.sink = this.streamFor?.(status);
      return true;
    }
  }

  private readBody(): HttpAnswer | undefined {
    const framing = this.head!.framing;
    if (framing.kind === 'close') {
      this.take(this.pending.length);
      return undefined;
    }
    if (framing.kind === 'length') {
      const n = Math.min(framing.left, this.pending.length);
      this.take(n);
      framing.left -= n;
      return framing.left === 0 ? this.complete() : undefined;
    }
    return this.readChunks();
  }

  private readChunks(): HttpAnswer | undefined {
    for (;;) {
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, this.pending.length);
        this.take(n);
        this.chunkLeft -= n;
        if (this.chunkLeft > 0) return undefined;
        this.chunkLeft = 0;
      }
      if (this.chunkLeft === 0) {
        if (this.pending.length < CRLF.length) return undefined;
        if (!this.pending.subarray(0, 2).equals(CRLF)) throw new HttpAnswerError('chunk not followed by CRLF');
        this.pending = this.pending.subarray(2);
        this.chunkLeft = -1;
      }
      const eol = this.pending.indexOf(CRLF);
      if (eol < 0) return undefined;
      const line = this.pending.subarray(0, eol).toString('latin1');
      this.pending = this.pending.subarray(eol + 2);
      if (this.chunkLeft === -2) {
        if (line === '') return this.complete(); // the trailer's end
        continue; // a trailer field: not used
      }
      const size = Number.parseInt(line.split(';')[0].trim(), 16);
      if (!Number.isSafeInteger(size) || size < 0 || !/^[0-9a-f]+$/i.test(line.split(';')[0].trim())) throw new HttpAnswerError(`bad chunk size line ${JSON.stringify(line.slice(0, 20))}`);
      this.chunkLeft = size === 0 ? -2 : size;
    }
  }

  private take(n: number): void {
    if (n === 0) return;
    if (this.sink) this.sink(this.pending.subarray(0, n));
    else this.body.push(this.pending.subarray(0, n));
    this.pending = this.pending.subarray(n);
  }

  private complete(): HttpAnswer {
    if (this.pending.length > 0) throw new HttpAnswerError('bytes after the answer on a connection with one request in flight');
    return this.answer(!this.head!.close);
  }

  private answer(reusable: boolean): HttpAnswer {
    const h = this.head!;
    return { status: h.status, statusMessage: h.statusMessage, headers: h.headers, body: this.body.length === 1 ? this.body[0] : this.body.length === 0 ? EMPTY : Buffer.concat(this.body), reusable };
  }
}
