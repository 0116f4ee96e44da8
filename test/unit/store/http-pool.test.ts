/**
 * The apiserver requests' connections (src/store/kube/http-pool.ts) against a real HTTPS server on
 * loopback: kept alive and reused, bounded, waiting callers served as connections free up, an abort
 * while waiting, a connection the server closes while idle, and one it drops mid-answer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, Agent as HttpsAgent } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { createHttpPool, openStream, type HttpPool, type StreamSink } from '../../../src/store/kube/http-pool.js';
import { createTestPki } from '../../kube/pki.js';

let dir: string;
let server: Server;
let agent: HttpsAgent;
let port: number;
let connections = 0;
let handler: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'http-pool-'));
  const pki = await createTestPki(dir, {});
  server = createServer({ cert: readFileSync(pki.serving.cert), key: readFileSync(pki.serving.key) }, (req, res) => handler(req, res));
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  agent = new HttpsAgent({ secureContext: createSecureContext({ ca: readFileSync(pki.caCert) }), keepAlive: true });
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  connections = 0;
  handler = (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body, auth: req.headers.authorization ?? null })));
  };
});

const aPool = (maxSockets = 4, idleMs = 30_000): HttpPool => createHttpPool(agent, { hostname: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}` }, { maxSockets, idleMs });
const request = (pool: HttpPool, path = '/x', signal = AbortSignal.timeout(10_000), payload?: string) =>
  pool.request({ method: payload ? 'POST' : 'GET', path, headers: { Accept: 'application/json', Authorization: 'Bearer t', ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}) }, payload, signal });
const json = (a: { body: Buffer }): Record<string, unknown> => JSON.parse(a.body.toString()) as Record<string, unknown>;

test('requests one after the other share one kept-alive connection, with their headers and bodies', async () => {
  const pool = aPool();
  for (let i = 0; i < 5; i++) {
    const answer = await request(pool, `/item/${i}?q=${i}`, undefined, i % 2 ? JSON.stringify({ n: i, s: 'é' }) : undefined);
    expect(answer.status).toBe(200);
    expect(json(answer)).toEqual({ method: i % 2 ? 'POST' : 'GET', url: `/item/${i}?q=${i}`, body: i % 2 ? JSON.stringify({ n: i, s: 'é' }) : '', auth: 'Bearer t' });
  }
  expect(connections).toBe(1);
});

test('concurrent requests beyond the bound wait for a connection, and all are answered', async () => {
  const pool = aPool(3);
  let inFlight = 0;
  let most = 0;
  handler = (req, res) => {
    most = Math.max(most, (inFlight += 1));
    setTimeout(() => {
      inFlight -= 1;
      res.end(JSON.stringify({ url: req.url }));
    }, 20);
  };
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request(pool, `/c/${i}`)));
  expect(answers.map((a) => json(a).url)).toEqual(Array.from({ length: 12 }, (_, i) => `/c/${i}`));
  expect(most).toBe(3);
  expect(connections).toBe(3);
});

test('a request aborted while it waits for a connection fails alone', async () => {
  const pool = aPool(1);
  handler = (req, res) => setTimeout(() => res.end('{}'), 100);
  const first = request(pool, '/slow');
  const waiting = new AbortController();
  const second = request(pool, '/aborted', waiting.signal);
  const third = request(pool, '/third');
  waiting.abort();
  await expect(second).rejects.toMatchObject({ name: 'AbortError' });
  expect((await first).status).toBe(200);
  expect((await third).status).toBe(200);
  expect(connections).toBe(1);
});

test('a connection the server closed while it was idle is left, and the next request gets a new one', async () => {
  const pool = aPool(1);
  expect((await request(pool)).status).toBe(200);
  server.closeIdleConnections();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await request(pool)).status).toBe(200);
  expect(connections).toBe(2);
});

test('a connection dropped in the middle of an answer fails that request as a hang-up, and the pool goes on', async () => {
  const pool = aPool(1);
  handler = (req, res) => {
    if (req.url === '/drop') {
      res.writeHead(200, { 'Content-Length': 100 });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
    } else res.end('{"ok":true}');
  };
  await expect(request(pool, '/drop')).rejects.toMatchObject({ code: 'ECONNRESET' });
  expect(json(await request(pool, '/after'))).toEqual({ ok: true });
});

test('an error answer is read whole, with its status and headers, and the connection kept', async () => {
  const pool = aPool(1);
  handler = (req, res) => {
    res.writeHead(409, 'Conflict', { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', code: 409 }));
  };
  const answer = await request(pool);
  expect(answer).toMatchObject({ status: 409, statusMessage: 'Conflict', reusable: true });
  expect(answer.headers['content-type']).toBe('application/json');
  expect(json(answer)).toEqual({ kind: 'Status', code: 409 });
  await request(pool);
  expect(connections).toBe(1);
});

test('a connection unused for idleMs is closed by the pool', async () => {
  const pool = aPool(1, 50);
  let closed = 0;
  server.once('secureConnection', (socket) => socket.once('close', () => (closed += 1)));
  expect((await request(pool)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(closed).toBe(1);
  expect((await request(pool)).status).toBe(200);
  expect(connections).toBe(2);
});

test('a header with a line break or a path with white space is refused before anything is sent', async () => {
  const pool = aPool(1);
  const signal = AbortSignal.timeout(10_000);
  await expect(pool.request({ method: 'GET', path: '/x', headers: { Authorization: 'Bearer t\r\nX-Injected: 1' }, signal })).rejects.toThrow(/line break/);
  await expect(pool.request({ method: 'GET', path: '/x y', headers: {}, signal })).rejects.toThrow(/white space/);
  expect(connections).toBe(0);
});

/** A stream sink that keeps what it is given. */
function collected(): StreamSink & { text: () => string; ended: Promise<unknown> } {
  let text = '';
  let finish: (err: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (finish = resolve));
  return { data: (bytes) => (text += bytes.toString()), done: (err) => finish(err), text: () => text, ended };
}

const target = () => ({ hostname: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}` });

test('a streamed answer goes to its sink as the server writes it, on a connection of its own, until the server ends it', async () => {
  handler = (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"type":"ADDED"}\n');
    setTimeout(() => res.write('{"type":"MODIFIED"}\n'), 30);
    setTimeout(() => res.end(), 60);
  };
  const sink = collected();
  const answer = await openStream(agent, target(), { method: 'GET', path: '/watch', headers: {}, signal: AbortSignal.timeout(10_000) }, sink, 30_000);
  expect(answer).toBeUndefined();
  expect(await sink.ended).toBeNull();
  expect(sink.text()).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
});

test('a stream answered with another status resolves with that whole answer', async () => {
  handler = (req, res) => {
    res.writeHead(410, 'Gone');
    res.end('{"kind":"Status","code":410}');
  };
  const sink = collected();
  const answer = await openStream(agent, target(), { method: 'GET', path: '/watch', headers: {}, signal: AbortSignal.timeout(10_000) }, sink, 30_000);
  expect(answer).toMatchObject({ status: 410 });
  expect(answer?.body.toString()).toBe('{"kind":"Status","code":410}');
});

test('aborting a stream ends it at once', async () => {
  handler = (req, res) => {
    res.writeHead(200);
    res.write('{"type":"ADDED"}\n');
  };
  const stop = new AbortController();
  const sink = collected();
  await openStream(agent, target(), { method: 'GET', path: '/watch', headers: {}, signal: stop.signal }, sink, 30_000);
  stop.abort();
  expect(await sink.ended).toBeNull();
  expect(sink.text()).toBe('{"type":"ADDED"}\n');
});
