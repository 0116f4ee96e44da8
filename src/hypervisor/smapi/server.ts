/**
 * A SMAPI request server speaking the real wire protocol (docs/smapi.md §1), in front of any
 * SmapiHandler (the simulator). One request per connection: the request id goes out as soon as
 * the frame is in, the result once the handler answers (plus latency). Bad frames, credentials,
 * functions and parameters get SMAPI's own codes (900/20, 900/36, 120/0, 900/12, 24/nn); garbage
 * never crashes it. Keeps recent replies for Response_Recovery (unknown id → 4/4) and injects
 * faults for tests (server-faults.ts).
 */
import net from 'node:net';
import tls from 'node:tls';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import {
  decodeParams, decodeRequestHeader, encodeOutput, encodeRequestId, encodeResultRaw, MAX_FRAME_BYTES,
} from './codec.js';
import type { RequestHeader } from './codec.js';
import { isSupportedFunction } from './layouts.js';
import { createSemaphore } from './semaphore.js';
import type { SmapiFaults } from './server-faults.js';
import { createReplyCache, noFaults, takeFault } from './server-faults.js';
import type { SmapiAuth, SmapiHandler, SmapiResponse } from './types.js';
import { SmapiFrameError, WireWriter } from './wire.js';

export type SmapiAuthCheck = SmapiAuth | ((userid: string, password: string) => boolean);

export interface SmapiServerOptions {
  handler: SmapiHandler;
  auth: SmapiAuthCheck;
  host?: string;
  /** 0 = an ephemeral port (read it back from `port`). */
  port?: number;
  /** Delay between request id and result, fixed or per function. */
  latencyMs?: number | ((fn: string) => number);
  /** Calls served at once (SMAPI's worker pool); more wait. Default 8. */
  concurrency?: number;
  faults?: Partial<SmapiFaults>;
  /** Completed replies kept for Response_Recovery. Default 1000. */
  recoveryCacheSize?: number;
  /** Serve over TLS with these options (key and cert at least). */
  tls?: tls.TlsOptions;
  /** Connections idle longer than this are closed. Default 60 s. */
  idleTimeoutMs?: number;
  log?: Logger;
  /** told of every request as it arrives, with the client's address (who called: the sim's call log) */
  onRequest?: (call: { fn: string; target: string; peer: string; receivedAt: number }) => void;
}

export interface SmapiServer {
  readonly port: number;
  /** Mutable at runtime: tests set counters before a call. */
  readonly faults: SmapiFaults;
  close(): Promise<void>;
}

function checkAuth(auth: SmapiAuthCheck, userid: string, password: string): boolean {
  if (typeof auth === 'function') return auth(userid, password);
  return userid.toUpperCase() === auth.userid.toUpperCase() && password === auth.password;
}

/** What one request needs answered: rc/rs and already-encoded output bytes. */
interface Answer {
  rc: number;
  rs: number;
  output: Buffer;
}

const answer = (rc: number, rs: number, output: Buffer = Buffer.alloc(0)): Answer => ({ rc, rs, output });

export async function createSmapiServer(o: SmapiServerOptions): Promise<SmapiServer> {
  const log = (o.log ?? silentLogger()).child({ component: 'smapi-server' });
  const faults: SmapiFaults = { ...noFaults(), ...o.faults };
  const workers = createSemaphore(o.concurrency ?? 8);
  const cache = createReplyCache(o.recoveryCacheSize ?? 1000);
  const sockets = new Set<net.Socket>();
  let nextId = 1;
  const newRequestId = (): number => {
    const id = nextId;
    nextId = nextId >= 0x7fffffff ? 1 : nextId + 1;
    return id;
  };
  const latency = (fn: string): number => (typeof o.latencyMs === 'function' ? o.latencyMs(fn) : o.latencyMs ?? 0);

  function recover(h: RequestHeader): Answer {
    const params = decodeParams('Response_Recovery', h.body);
    const embedded = cache.get(Number(params.failed_request_id));
    return embedded ? answer(0, 0, embedded) : answer(4, 4);
  }

  async function runHandler(h: RequestHeader): Promise<Answer> {
    const params = decodeParams(h.fn, h.body);
    if (takeFault(faults, 'busy')) return answer(900, 8);
    let resp: SmapiResponse;
    try {
      resp = await workers.run(() => o.handler.handle({ fn: h.fn, target: h.target, params }));
    } catch (err) {
      log.error({ err, fn: h.fn }, 'SMAPI handler failed');
      return answer(900, 28);
    }
    return answer(resp.rc, resp.rs, encodeOutput(h.fn, resp.output, resp.rc, resp.rs));
  }

  /** Everything that can go wrong becomes an rc/rs answer; nothing escapes. */
  async function serve(h: RequestHeader): Promise<Answer> {
    if (!checkAuth(o.auth, h.userid, h.password)) return answer(120, 0);
    if (!isSupportedFunction(h.fn)) return answer(900, 12);
    if (h.fn === 'Response_Recovery') return recover(h);
    const result = await runHandler(h);
    const wait = latency(h.fn) + (takeFault(faults, 'delayCount') ? faults.delayMs : 0);
    if (wait > 0) await delay(wait);
    return result;
  }

  async function handleFrame(sock: net.Socket, frame: Buffer): Promise<void> {
    const receivedAt = Date.now();
    const requestId = newRequestId();
    sock.write(encodeRequestId(requestId));
    let result: Answer;
    let fn = '';
    try {
      const h = decodeRequestHeader(frame);
      fn = h.fn;
      o.onRequest?.({ fn, target: h.target, peer: sock.remoteAddress ?? '', receivedAt });
      const drop = fn !== 'Response_Recovery' && isSupportedFunction(fn) && takeFault(faults, 'dropAfterRequestId');
      if (drop) sock.destroy();
      result = await serve(h);
    } catch (err) {
      if (!(err instanceof SmapiFrameError)) log.error({ err, fn }, 'SMAPI request failed');
      result = err instanceof SmapiFrameError ? answer(err.rc, err.rs) : answer(900, 28);
    }
    const embedded = new WireWriter().int4(requestId).int4(result.rc).int4(result.rs).raw(result.output).toBuffer();
    if (fn !== 'Response_Recovery') cache.put(requestId, embedded);
    log.debug({ fn, requestId, rc: result.rc, rs: result.rs }, 'smapi request');
    if (!sock.destroyed) sock.end(encodeResultRaw(requestId, result.rc, result.rs, result.output));
  }

  function onConnection(sock: net.Socket): void {
    sockets.add(sock);
    sock.setTimeout(o.idleTimeoutMs ?? 60_000, () => sock.destroy());
    let buf: Buffer = Buffer.alloc(0);
    let started = false;
    const start = (frame: Buffer): void => {
      started = true;
      sock.removeAllListeners('data');
      handleFrame(sock, frame).catch((err: unknown) => {
        log.error({ err }, 'SMAPI connection failed');
        sock.destroy();
      });
    };
    sock.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const length = buf.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES || buf.length >= 4 + length) start(length > MAX_FRAME_BYTES ? buf : buf.subarray(0, 4 + length));
    });
    // The client stopped sending before its length was reached: a length mismatch (900/20).
    sock.on('end', () => { if (!started && buf.length > 0) start(buf); else if (!started) sock.end(); });
    sock.on('error', (err) => log.debug({ err }, 'SMAPI connection error'));
    sock.on('close', () => sockets.delete(sock));
  }

  // SMAPI's TLS request server is the same protocol inside TLS (docs/smapi.md §1.1).
  const server = o.tls
    ? tls.createServer({ ...o.tls, allowHalfOpen: true }, onConnection)
    : net.createServer({ allowHalfOpen: true }, onConnection);
  // Every transport connection, including TLS handshakes that never complete, so close() can end them.
  const connections = new Set<net.Socket>();
  server.on('connection', (raw: net.Socket) => {
    connections.add(raw);
    raw.on('close', () => connections.delete(raw));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  server.on('error', (err) => log.error({ err }, 'SMAPI server error'));
  const address = server.address() as net.AddressInfo;
  log.info({ port: address.port }, 'SMAPI server listening');

  return {
    port: address.port,
    faults,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      for (const c of connections) c.destroy();
      server.close(() => resolve());
    }),
  };
}
