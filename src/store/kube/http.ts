/**
 * One request to the Kubernetes API over the process's shared agents (connection-pool.ts), on Node's
 * HTTP client. client-node still does what it is for (credentials, exec plugins, token files, the
 * agent): its KubeConfig.applyToHTTPSOptions prepares the requests, once per few seconds (baseOf). Its
 * generated API layer (ObjectSerializer, node-fetch, middleware) is not used: per request it cost the
 * controller about as much CPU as the reconcile the request served (issue 23's profile). Failures are
 * thrown as client-node's own API throws them (ApiException with the code and body), so kube-errors.ts
 * maps both the same way. (Requests written and read by hand on the agent's TLS sockets cost about
 * 1–2 ms less per guest in the density gate; a hand-written HTTP/1.1 client was not worth that:
 * bench/README.md, density.)
 */
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { ApiException, type KubeConfig } from '@kubernetes/client-node';
import { watchAgentFor } from './connection-pool.js';

const JSON_TYPE = 'application/json';
export const MERGE_PATCH = 'application/merge-patch+json';

export type KubeQuery = Record<string, string | number | undefined>;

export interface KubeRequest {
  method: string;
  /** from the server's root, e.g. /api/v1/namespaces/x/events */
  path: string;
  query?: KubeQuery;
  /** sent as JSON */
  body?: unknown;
  /** default application/json */
  contentType?: string;
  /** bounds the request, answer included (client-node sets no timeout of its own) */
  signal: AbortSignal;
  /** the caller reads nothing of a 2xx answer (an Event write): it is not parsed, and undefined comes back */
  discardAnswer?: boolean;
}

/** The answer's headers as ApiException carries them. */
const flatHeaders = (h: IncomingHttpHeaders): Record<string, string> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));

/**
 * How long what client-node applies for one request serves the next ones. It reads the credentials afresh
 * each time (the CA, certificate and key files or base64 data, a token file): with this, a credential
 * rotated on disk is picked up within this period, and not re-read and compared per request.
 */
export const TLS_MATERIAL_TTL_MS = 5_000;

/**
 * What client-node applies to every request of one context (the agent, the Authorization and
 * impersonation headers, basic auth): worked out once per TLS_MATERIAL_TTL_MS. Per request it cost about
 * a fifth of the request's CPU on this machine (an async call chain, reading the TLS material, the agent
 * lookup comparing the key and certificates, a URL parse).
 */
interface Base {
  at: number;
  context: string;
  secure: boolean;
  /** the server's address, and the path prefix of a server URL such as https://host/k8s/clusters/x */
  hostname: string;
  port: string;
  prefix: string;
  options: RequestOptions;
}

const bases = new WeakMap<KubeConfig, Base>();

async function baseOf(kubeconfig: KubeConfig): Promise<Base> {
  const now = performance.now();
  const context = kubeconfig.getCurrentContext();
  const kept = bases.get(kubeconfig);
  if (kept && kept.context === context && now - kept.at < TLS_MATERIAL_TTL_MS) return kept;
  const server = kubeconfig.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no current cluster');
  const url = new URL(server);
  const applied: RequestOptions = { headers: {} };
  await kubeconfig.applyToHTTPSOptions(applied);
  // the agent carries the TLS material (client-node built it from the same options): left out here,
  // where the agent would fold kilobytes of it into every request's socket-pool name
  const { ca: _ca, cert: _cert, key: _key, pfx: _pfx, passphrase: _passphrase, auth, ...options } = applied;
  // basic auth as a header: `auth` is left out with the TLS material above
  const headers = { ...(options.headers as Record<string, string>) };
  if (auth && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.Authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  const secure = url.protocol === 'https:';
  const base: Base = {
    at: now, context, secure, options: { ...options, headers },
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname, port: url.port || (secure ? '443' : '80'),
    prefix: url.pathname.replace(/\/+$/, ''),
  };
  bases.set(kubeconfig, base);
  return base;
}

/** `?k=v&…` of the set values (URLSearchParams cost a few percent of a request here; the apiserver reads either encoding). */
function queryString(query: KubeQuery | undefined): string {
  let text = '';
  for (const k in query) {
    const v = query[k];
    if (v !== undefined && v !== '') text += `${text ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return text;
}

/** The request's options and body, authenticated by client-node (and its pooled agent, connection-pool.ts). */
async function prepare(kubeconfig: KubeConfig, r: KubeRequest): Promise<{ secure: boolean; opts: RequestOptions; payload?: string }> {
  const base = await baseOf(kubeconfig);
  const payload = r.body === undefined ? undefined : JSON.stringify(r.body);
  // a body always with its length: Node frames a DELETE's body by nothing else, and the server would
  // read it as the next request on the kept-alive socket
  const framing = payload === undefined ? {} : { 'Content-Type': r.contentType ?? JSON_TYPE, 'Content-Length': Buffer.byteLength(payload) };
  const opts: RequestOptions = {
    ...base.options, hostname: base.hostname, port: base.port, path: `${base.prefix}${r.path}${queryString(r.query)}`, method: r.method,
    headers: { Accept: JSON_TYPE, ...base.options.headers, ...framing },
  };
  return { secure: base.secure, opts, payload };
}

/**
 * Sends the request; aborting `signal` destroys it. (Node's own `signal` option wires each request
 * through addAbortSignal and end-of-stream, a few listeners more per request than this one.)
 */
function send(secure: boolean, opts: RequestOptions, signal: AbortSignal, onResponse: (res: IncomingMessage) => void): ClientRequest {
  const req = (secure ? httpsRequest : httpRequest)(opts, onResponse);
  const onAbort = (): void => void req.destroy(Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError' }));
  if (signal.aborted) onAbort();
  else {
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
  }
  return req;
}

/** Reads a whole answer; rejects with an ApiException unless it is 2xx. */
function readAnswer(res: IncomingMessage, onText: (text: string) => void, reject: (err: unknown) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('error', reject);
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) return reject(new ApiException(code, res.statusMessage ?? '', text, flatHeaders(res.headers)));
    onText(text);
  });
}

/** A JSON answer on 2xx (undefined for an empty one), else an ApiException. */
export async function kubeRequest(kubeconfig: KubeConfig, r: KubeRequest): Promise<unknown> {
  const { secure, opts, payload } = await prepare(kubeconfig, r);
  return new Promise<unknown>((resolve, reject) => {
    const req = send(secure, opts, r.signal, (res) =>
      readAnswer(res, (text) => {
        try {
          resolve(text && !r.discardAnswer ? JSON.parse(text) : undefined);
        } catch (err) {
          reject(err);
        }
      }, reject),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** How long a watch's socket may stay silent before TCP keep-alive probes ask whether the server is still there. */
const WATCH_KEEPALIVE_MS = 30_000;

/** Where a stream's body goes: its bytes as they arrive, then its end once. */
export interface StreamSink {
  data(bytes: Buffer): void;
  /** once: null when the server ended the answer or the connection, else the failure */
  done(err: unknown): void;
}

/**
 * A streaming GET (a watch) on the process's watch agent: resolves once the server says 200, the body
 * then going to `sink` until it ends; else rejects with an ApiException with the server's Status.
 * Aborting `r.signal` ends the stream.
 */
export async function kubeStream(kubeconfig: KubeConfig, r: KubeRequest, sink: StreamSink): Promise<void> {
  const { secure, opts } = await prepare(kubeconfig, r);
  const watches = watchAgentFor(opts.agent);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(secure, watches ? { ...opts, agent: watches } : opts, r.signal, (res) => {
      if (res.statusCode === 200) resolve(res);
      else readAnswer(res, () => reject(new ApiException(res.statusCode ?? 0, res.statusMessage ?? '', '', flatHeaders(res.headers))), reject);
    });
    req.on('socket', (socket) => socket.setKeepAlive(true, WATCH_KEEPALIVE_MS));
    req.on('error', reject);
    req.end();
  });
  let finished = false;
  const done = (err: unknown): void => {
    if (finished) return;
    finished = true;
    sink.done(err);
  };
  res.on('data', (bytes: Buffer) => sink.data(bytes));
  res.on('end', () => done(null));
  res.on('error', done);
  // closed without an error first: ended (the caller restarts from its last resourceVersion)
  res.on('close', () => done(null));
}
