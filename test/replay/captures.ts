/**
 * The reference client's captured requests (test/fixtures/rest-client-captures, see its README.md) and a raw
 * TCP replay of their exact bytes: only the {port}, {admin_token} and {auth_token} placeholders change.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { join } from 'node:path';
import { REST_CLIENT_CAPTURES } from '../fixtures/paths.js';

export const CAPTURE_DIR = REST_CLIENT_CAPTURES;

export interface Capture {
  file: string;
  api: string;
  variant: string;
  auth: 'token' | 'none';
  role: 'api' | 'token-fetch';
  method: string;
  path: string;
  http_version: string;
  headers: [string, string][];
  body_b64: string;
  body_text: string | null;
  note?: string;
  client: { feilong_rev: string; python: string; requests: string; urllib3: string };
}

/** One client call: the API request and, in token mode, the client's own POST /token before it. */
export interface CapturedCall {
  api: string;
  variant: string;
  auth: 'token' | 'none';
  request: Capture;
  preToken?: Capture;
}

export function loadCaptures(dir: string = CAPTURE_DIR): Capture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<Capture, 'file'>) }));
}

export function groupCalls(captures: Capture[]): CapturedCall[] {
  const calls = new Map<string, CapturedCall>();
  for (const c of captures.filter((x) => x.role === 'api')) calls.set(`${c.auth}/${c.api}/${c.variant}`, { api: c.api, variant: c.variant, auth: c.auth, request: c });
  for (const c of captures.filter((x) => x.role === 'token-fetch')) {
    const call = calls.get(`${c.auth}/${c.api}/${c.variant}`);
    if (!call) throw new Error(`${c.file}: token fetch without its API request`);
    call.preToken = c;
  }
  return [...calls.values()];
}

export interface Substitutions {
  port: number;
  adminToken?: string;
  authToken?: string;
}

function substitute(text: string, s: Substitutions): string {
  return text
    .replaceAll('{port}', String(s.port))
    .replaceAll('{admin_token}', s.adminToken ?? '')
    .replaceAll('{auth_token}', s.authToken ?? '');
}

/** The request's bytes as the client wrote them (request line, headers in wire order, body as sent). */
export function requestBytes(c: Capture, s: Substitutions): Buffer {
  const head = [`${c.method} ${c.path} ${c.http_version}`, ...c.headers.map(([n, v]) => `${n}: ${substitute(v, s)}`)].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), Buffer.from(c.body_b64, 'base64')]);
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json?: unknown;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status, headers };
}

/** De-chunks a complete chunked body, or undefined while the terminating chunk has not arrived. */
function dechunk(buf: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (buf.length < eol + 2 + size + 2) return undefined;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

function completeBody(headers: Record<string, string>, rest: Buffer): Buffer | undefined {
  if (headers['transfer-encoding']?.includes('chunked')) return dechunk(rest);
  const length = Number(headers['content-length'] ?? 0);
  return rest.length >= length ? rest.subarray(0, length) : undefined;
}

/**
 * Writes the bytes on a fresh TCP connection (TLS when given the CA that signed the server's certificate)
 * and reads one HTTP response (Content-Length or chunked).
 */
export function sendRaw(port: number, bytes: Buffer, o: { timeoutMs?: number; ca?: Buffer } = {}): Promise<RawResponse> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const socket = o.ca ? connectTls({ host: '127.0.0.1', port, ca: o.ca }) : connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms; got: ${data.toString('latin1').slice(0, 300)}`));
    }, timeoutMs);
    const finish = (res: RawResponse) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(res);
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const { status, headers } = parseHead(data.subarray(0, end).toString('latin1'));
      const body = completeBody(headers, data.subarray(end + 4));
      if (!body) return;
      const text = body.toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      finish({ status, headers, body, text, json });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.write(bytes);
  });
}
