/**
 * The HTTP/1.1 answer reader of the apiserver requests (src/store/kube/http-answer.ts): an answer
 * arrives in whatever pieces the socket delivers, and is framed by Content-Length, by chunked
 * transfer coding, or by the connection's end.
 */
import { HttpAnswerError, HttpAnswerReader, type HttpAnswer } from '../../../src/store/kube/http-answer.js';

/** Feeds `text` (its bytes in `encoding`) in pieces of `size` bytes; the answer, and how many bytes had gone in when it came. */
function feed(text: string, size: number, method = 'GET', encoding: BufferEncoding = 'utf8'): { answer?: HttpAnswer; at: number; reader: HttpAnswerReader } {
  const bytes = Buffer.from(text, encoding);
  const reader = new HttpAnswerReader(method);
  for (let at = 0; at < bytes.length; at += size) {
    const answer = reader.push(bytes.subarray(at, Math.min(at + size, bytes.length)));
    if (answer) return { answer, at: Math.min(at + size, bytes.length), reader };
  }
  return { at: bytes.length, reader };
}

const body = JSON.stringify({ kind: 'ZGuest', metadata: { name: 'g1', labels: { 'zvm.dev/host': 'h1' } }, status: { message: 'é ünïcode' } });
const length = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nAudit-Id: a\r\nAudit-Id: b\r\n\r\n${body}`;

/** A chunked answer of `text`'s UTF-8 bytes in chunks of `sizes`, as a latin1 string (one character a byte). */
function chunked(text: string, sizes: number[]): string {
  const bytes = Buffer.from(text);
  let out = 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n';
  let at = 0;
  for (const size of sizes) {
    out += `${size.toString(16)}${size % 2 ? ';ext=1' : ''}\r\n${bytes.subarray(at, at + size).toString('latin1')}\r\n`;
    at += size;
  }
  return `${out}0\r\nX-Trailer: t\r\n\r\n`;
}

describe('HTTP/1.1 answers read piece by piece', () => {
  it.each([1, 7, 64, 100_000])('a Content-Length answer in pieces of %i bytes, done at its last byte', (size) => {
    const { answer, at } = feed(length, size);
    expect(answer).toBeDefined();
    expect(at).toBe(Buffer.byteLength(length));
    expect(answer!.status).toBe(200);
    expect(answer!.statusMessage).toBe('OK');
    expect(answer!.headers['content-type']).toBe('application/json');
    expect(answer!.headers['audit-id']).toBe('a, b');
    expect(answer!.body.toString('utf8')).toBe(body);
    expect(answer!.reusable).toBe(true);
  });

  it.each([1, 5, 33, 100_000])('a chunked answer with extensions and a trailer in pieces of %i bytes', (size) => {
    const bytes = Buffer.byteLength(body);
    const text = chunked(body, [10, 1, bytes - 11]);
    const { answer, at } = feed(text, size, 'GET', 'latin1');
    expect(answer).toBeDefined();
    expect(at).toBe(text.length);
    expect(answer!.status).toBe(201);
    expect(answer!.body.toString('utf8')).toBe(body);
  });

  it('has no answer before the last byte', () => {
    const text = chunked('{"a":1}', [7]);
    const { answer } = feed(text.slice(0, -1), 1, 'GET', 'latin1');
    expect(answer).toBeUndefined();
  });

  it('reads a 204 and a HEAD answer as empty, whatever their length says', () => {
    expect(feed('HTTP/1.1 204 No Content\r\n\r\n', 4).answer?.body.length).toBe(0);
    expect(feed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 4, 'HEAD').answer?.body.length).toBe(0);
  });

  it('skips an interim 100 Continue', () => {
    const { answer } = feed(`HTTP/1.1 100 Continue\r\n\r\n${length}`, 9);
    expect(answer?.status).toBe(200);
    expect(answer?.body.toString()).toBe(body);
  });

  it('an answer the server ends with Connection: close is not reused', () => {
    const { answer } = feed('HTTP/1.1 409 Conflict\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}', 3);
    expect(answer).toMatchObject({ status: 409, reusable: false });
  });

  it('a body without length ends with the connection, and is not reused', () => {
    const { answer, reader } = feed('HTTP/1.1 200 OK\r\n\r\n{"a":', 4);
    expect(answer).toBeUndefined();
    reader.push(Buffer.from('1}'));
    expect(reader.end()).toMatchObject({ status: 200, reusable: false });
    expect(reader.end().body.toString()).toBe('{"a":1}');
  });

  it('a connection ended before the answer was whole is a hang-up', () => {
    const { reader } = feed(length.slice(0, -3), 50);
    expect(() => reader.end()).toThrow(expect.objectContaining({ code: 'ECONNRESET' }));
    expect(() => new HttpAnswerReader('GET').end()).toThrow('socket hang up');
  });

  it('refuses what is no HTTP/1.1 answer', () => {
    expect(() => feed('SSH-2.0-OpenSSH\r\n\r\n', 100)).toThrow(HttpAnswerError);
    expect(() => feed('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', 100)).toThrow(/bad header line/);
    expect(() => feed('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 100)).toThrow(/bad Content-Length/);
    expect(() => feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 100)).toThrow(/bad chunk size/);
    expect(() => feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY', 100)).toThrow(/not followed by CRLF/);
    expect(() => feed('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', 100)).toThrow(/bytes after the answer/);
  });

  it('a streamed answer hands its body out chunk by chunk as it arrives, and completes empty', () => {
    const got: string[] = [];
    const reader = new HttpAnswerReader('GET', (status) => (status === 200 ? (bytes) => got.push(bytes.toString()) : undefined));
    const text = chunked('{"type":"ADDED"}\n{"type":"MODIFIED"}\n', [17, 20]).replace('201 Created', '200 OK');
    const cut = text.indexOf('ADDED"}\n') + 8; // the first chunk's last byte, before its CRLF
    expect(reader.push(Buffer.from(text.slice(0, cut), 'latin1'))).toBeUndefined();
    expect(reader.streaming).toBe(true);
    expect(got.join('')).toBe('{"type":"ADDED"}\n');
    const answer = reader.push(Buffer.from(text.slice(cut), 'latin1'));
    expect(got.join('')).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    expect(answer?.body.length).toBe(0);
  });

  it('an answer of another status is kept whole although a stream was asked for', () => {
    const reader = new HttpAnswerReader('GET', (status) => (status === 200 ? () => undefined : undefined));
    const answer = reader.push(Buffer.from('HTTP/1.1 410 Gone\r\nContent-Length: 4\r\n\r\ngone'));
    expect(reader.streaming).toBe(false);
    expect(answer).toMatchObject({ status: 410 });
    expect(answer?.body.toString()).toBe('gone');
  });
});

