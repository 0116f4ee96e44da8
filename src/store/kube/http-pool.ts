/**
 * Requests to the apiserver written and read by hand on kept-alive TLS connections (issue 38: the
 * density gate's CPU per guest). Node's HTTP client spends about half of a spaced request's CPU on
 * this machine in its own machinery (ClientRequest and IncomingMessage streams, the agent's socket
 * hand-over, 'free' events, async-id resets): 0.63–0.82 ms per GET against 0.34–0.47 ms written
 * and read here (bench/README.md, density). One request at a time per connection, at most
 * MAX_REQUEST_SOCKETS connections (more callers wait their turn), connections made by the shared
 * agent (its TLS context, its handshake count) and closed after IDLE_SOCKET_MS unused. Watches
 * stream on Node's client (http.ts): they are long-lived and few.
 */
import type { Agent as HttpsAgent } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { HttpAnswerReader, type HttpAnswer } from './http-answer.js';

export interface PoolRequest {
  method: string;
  /** path and query */
  path: string;
  headers: Record<string, string | number>;
  payload?: string;
  signal: AbortSignal;
}

export interface HttpPool {
  request(r: PoolRequest): Promise<HttpAnswer>;
}

/** What a connection's listeners hand to the exchange under way on it. */
interface Exchange {
  data(chunk: Buffer): void;
  /** the connection ended or closed */
  ended(): void;
  failed(err: Error): void;
}

interface Waiter {
  grant: (socket: TLSSocket | undefined) => void;
}

const abortError = (signal: AbortSignal): Error => Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError' });

/** Node's https agent's own connection factory: the shared TLS context, and connection-pool.ts counts the handshakes. */
type Connect = (options: Record<string, unknown>) => TLSSocket;

export interface Target {
  hostname: string;
  port: number;
  /** the Host header: host and port as the server URL names them */
  hostHeader: string;
}

/** A new TLS connection made by `agent` (its TLS context and options; connection-pool.ts counts its handshakes). */
function connectVia(agent: HttpsAgent, target: Target): TLSSocket {
  const options = (agent as unknown as { options: Record<string, unknown> }).options;
  const connect = (agent as unknown as { createConnection: Connect }).createConnection.bind(agent);
  const socket = connect({ ...options, host: target.hostname, port: target.port, servername: options.servername ?? (isIp(target.hostname) ? undefined : target.hostname) });
  socket.setNoDelay(true);
  return socket;
}

/** The request line and headers; what Node's client refuses is refused too (a line break would end the head early, a space the request line). */
function headOf(r: PoolRequest, target: Target): string {
  if (/\s/.test(r.path)) throw new TypeError(`request path with white space: ${JSON.stringify(r.path.slice(0, 80))}`);
  let head = `${r.method} ${r.path} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n`;
  for (const [name, value] of Object.entries(r.headers)) {
    const text = String(value);
    if (/[\r\n]/.test(name) || /[\r\n]/.test(text)) throw new TypeError(`request header ${JSON.stringify(name)} with a line break`);
    head += `${name}: ${text}\r\n`;
  }
  return head;
}

export function createHttpPool(agent: HttpsAgent, target: Target, o: { maxSockets: number; idleMs: number }): HttpPool {
  const free: TLSSocket[] = [];
  const waiting: Waiter[] = [];
  let open = 0;

  /** the exchange under way on each connection: its listeners are the connection's, set once */
  const current = new Map<TLSSocket, Exchange>();

  /** A new connection in a place take() reserved. */
  function dial(): TLSSocket {
    const socket = connectVia(agent, target);
    socket.setTimeout(o.idleMs);
    // an idle connection the server or the network ended, or unused too long, leaves the pool
    const drop = (): void => {
      const at = free.indexOf(socket);
      if (at >= 0) free.splice(at, 1);
    };
    socket.on('data', (chunk: Buffer) => current.get(socket)?.data(chunk));
    socket.on('timeout', () => {
      if (free.includes(socket)) socket.destroy();
    });
    socket.on('end', () => {
      drop();
      current.get(socket)?.ended();
      socket.destroy();
    });
    socket.on('error', (err) => {
      drop();
      current.get(socket)?.failed(err);
    });
    socket.once('close', () => {
      drop();
      current.get(socket)?.ended();
      open -= 1;
      // a place for a new connection: the first waiter gets it
      const waiter = waiting.shift();
      if (waiter) {
        open += 1;
        waiter.grant(undefined);
      }
    });
    return socket;
  }

  /** An idle connection, or undefined for a place reserved for a new one (counted in `open`). */
  function take(signal: AbortSignal): Promise<TLSSocket | undefined> {
    const idle = free.pop();
    if (idle) return Promise.resolve(idle);
    if (open < o.maxSockets) {
      open += 1;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: (socket) => {
          signal.removeEventListener('abort', onAbort);
          resolve(socket);
        },
      };
      const onAbort = (): void => {
        const at = waiting.indexOf(waiter);
        if (at >= 0) waiting.splice(at, 1);
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
    });
  }

  function give(socket: TLSSocket): void {
    const waiter = waiting.shift();
    if (waiter) waiter.grant(socket);
    else free.push(socket);
  }

  function exchange(socket: TLSSocket, r: PoolRequest, head: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const reader = new HttpAnswerReader(r.method);
      const done = (err: unknown, answer?: HttpAnswer): void => {
        if (current.get(socket) !== handlers) return;
        current.delete(socket);
        r.signal.removeEventListener('abort', onAbort);
        if (err) {
          socket.destroy();
          return reject(err);
        }
        if (answer!.reusable && !socket.destroyed) give(socket);
        else socket.destroy();
        resolve(answer!);
      };
      const handlers: Exchange = {
        data(chunk) {
          let answer: HttpAnswer | undefined;
          try {
            answer = reader.push(chunk);
          } catch (err) {
            return done(err);
          }
          if (answer) done(undefined, answer);
        },
        ended() {
          try {
            done(undefined, reader.end());
          } catch (err) {
            done(err);
          }
        },
        failed: (err) => done(err),
      };
      const onAbort = (): void => done(abortError(r.signal));
      current.set(socket, handlers);
      if (r.signal.aborted) return onAbort();
      if (socket.destroyed) return handlers.ended();
      r.signal.addEventListener('abort', onAbort, { once: true });
      socket.write(`${head}\r\n${r.payload ?? ''}`);
    });
  }

  return {
    async request(r) {
      if (r.signal.aborted) throw abortError(r.signal);
      const head = headOf(r, target);
      const socket = (await take(r.signal)) ?? dial();
      return exchange(socket, r, head);
    },
  };
}

export interface StreamSink {
  /** the body's bytes, as they arrive */
  data(bytes: Buffer): void;
  /** once: null when the server ended the answer or the connection, else the failure */
  done(err: unknown): void;
}

/**
 * A streamed answer (a watch) on a connection of its own, made by `agent` (the watch agent: a watch
 * holds its connection for minutes, never one of the requests'). Resolves once the server answered 200
 * (the body then goes to `sink`, until done), or with the whole answer of any other status. Aborting
 * `r.signal` closes the connection.
 */
export function openStream(agent: HttpsAgent, target: Target, r: PoolRequest, sink: StreamSink, keepAliveMs: number): Promise<HttpAnswer | undefined> {
  return new Promise((resolve, reject) => {
    if (r.signal.aborted) return reject(abortError(r.signal));
    const head = headOf(r, target);
    const socket = connectVia(agent, target);
    socket.setKeepAlive(true, keepAliveMs);
    let streaming = false;
    let ended = false;
    const reader = new HttpAnswerReader(r.method, (status) => (status === 200 ? (bytes) => sink.data(bytes) : undefined));
    const end = (err: unknown): void => {
      r.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (!streaming) return reject(err ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      if (ended) return;
      ended = true;
      sink.done(err);
    };
    const onAbort = (): void => end(streaming ? null : abortError(r.signal));
    socket.on('data', (chunk: Buffer) => {
      let answer: HttpAnswer | undefined;
      try {
        answer = reader.push(chunk);
      } catch (err) {
        return end(err);
      }
      if (!streaming && reader.streaming) {
        streaming = true;
        resolve(undefined);
      }
      if (!answer) return;
      if (streaming) return end(null);
      r.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answer);
    });
    // an ended connection ends the stream (the caller restarts it from its last resourceVersion); an
    // answer of another status framed by the connection's end is whole then
    const onEnd = (): void => {
      if (streaming) return end(null);
      try {
        const answer = reader.end();
        r.signal.removeEventListener('abort', onAbort);
        socket.destroy();
        resolve(answer);
      } catch (err) {
        end(err);
      }
    };
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', (err) => end(err));
    r.signal.addEventListener('abort', onAbort, { once: true });
    socket.write(`${head}\r\n${r.payload ?? ''}`);
  });
}

const isIp = (host: string): boolean => /^[\d.]+$/.test(host) || host.includes(':');
