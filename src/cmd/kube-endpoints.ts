import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { InvalidInputError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * The cluster-mode HTTP endpoints of `zvm-operator controller`: probes (/healthz, /readyz) and
 * Prometheus metrics (/metrics), each on its own bind address as controller-runtime has them
 * (`:8081`, `:8080`; `0` turns one off). Plain node:http: two paths need no framework.
 */
export interface Endpoint {
  url: string;
  close(): Promise<void>;
}

/** ":8080" → all interfaces; "127.0.0.1:0" → an ephemeral port; "0" → off (undefined). */
export function parseBindAddress(value: string): { host: string; port: number } | undefined {
  if (value === '0' || value === '') return undefined;
  const at = value.lastIndexOf(':');
  const host = at > 0 ? value.slice(0, at) : '0.0.0.0';
  const port = Number(at >= 0 ? value.slice(at + 1) : value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidInputError(`bad bind address ${value}`);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

async function listen(bind: string, handler: Handler, log: Logger): Promise<Endpoint | undefined> {
  const addr = parseBindAddress(bind);
  if (!addr) return undefined;
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, 'endpoint failed');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${addr.host.includes(':') ? `[${addr.host}]` : addr.host}:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function text(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

export function listenProbes(bind: string, isReady: () => boolean, log: Logger): Promise<Endpoint | undefined> {
  return listen(bind, async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/livez') return text(res, 200, 'ok');
    if (path === '/readyz') return isReady() ? text(res, 200, 'ok') : text(res, 503, 'not ready: informers have not synced');
    text(res, 404, 'not found');
  }, log);
}

export function listenMetrics(bind: string, registry: Registry, log: Logger, opts: { probes?: () => boolean } = {}): Promise<Endpoint | undefined> {
  const { probes } = opts;
  return listen(bind, async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // a process without a probe listener of its own (REST) answers its unauthenticated probes here
    if (probes && (path === '/healthz' || path === '/livez')) return text(res, 200, 'ok');
    if (probes && path === '/readyz') return probes() ? text(res, 200, 'ok') : text(res, 503, 'not ready');
    if (path !== '/metrics') return text(res, 404, 'not found');
    text(res, 200, await registry.metrics(), registry.contentType);
  }, log);
}
