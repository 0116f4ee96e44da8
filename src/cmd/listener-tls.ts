/**
 * HTTPS on the REST and admin listeners (SECURITY.md "Ports"): TLS 1.2 or newer; the certificate and key
 * re-read when their files change, so a rotated Secret or a cert-manager renewal needs no restart; an
 * optional client CA whose certificates authenticate like a token (rest/plugins/auth.ts isAuthenticated).
 */
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { ServerOptions } from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../errors.js';
import type { Logger } from '../log.js';

/** The listener flags shared by `standalone` and `rest` (main.ts). */
export interface ListenerTlsOptions {
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  /** token auth on a non-loopback address without TLS: start anyway, with a warning */
  insecurePlainHttp?: boolean;
}

export interface TlsFiles {
  cert: string;
  key: string;
  clientCa?: string;
}

/** The files (watched) and the node:https options read from them at start. */
export interface ListenerTls {
  files: TlsFiles;
  https: ServerOptions;
}

/** How often the files are stat()ed: kubelet refreshes a mounted Secret within about a minute anyway. */
export const TLS_RELOAD_INTERVAL_MS = 2000;

/** True for addresses that only this machine can reach. */
export function isLoopback(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (a === 'localhost') return true;
  if (isIP(a) === 4) return a.startsWith('127.');
  return a === '::1' || a.startsWith('::ffff:127.');
}

/**
 * The TLS files of a process's listeners, or undefined for plain HTTP. Throws before anything listens
 * when the flags do not fit together, or when token auth would send its tokens in clear over a network.
 */
export function listenerTls(opts: ListenerTlsOptions & { auth: 'token' | 'none' }, binds: string[], log: Logger): ListenerTls | undefined {
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new InvalidInputError('--tls-cert and --tls-key go together: give both or neither');
  if (opts.tlsClientCa && !opts.tlsCert) throw new InvalidInputError('--tls-client-ca needs --tls-cert and --tls-key (client certificates are only asked for over TLS)');
  if (opts.tlsClientCa && opts.auth !== 'token') throw new InvalidInputError('--tls-client-ca needs --auth token: with --auth none every request is served, certificate or not');
  if (opts.tlsCert && opts.tlsKey) {
    const files = { cert: opts.tlsCert, key: opts.tlsKey, ...(opts.tlsClientCa ? { clientCa: opts.tlsClientCa } : {}) };
    return { files, https: httpsOptions(files) }; // unreadable files or a mismatched pair refuse the start
  }
  const exposed = opts.auth === 'token' ? binds.filter((b) => !isLoopback(b)) : [];
  if (exposed.length === 0) return undefined;
  const risk = `--auth token on ${exposed.join(', ')} without TLS sends the admin token and every auth token in clear to anyone on the network path`;
  if (!opts.insecurePlainHttp) throw new InvalidInputError(`refusing to start: ${risk}; give --tls-cert and --tls-key, bind 127.0.0.1, or accept the risk with --insecure-plain-http`);
  log.warn({ binds: exposed }, `${risk} (--insecure-plain-http)`);
  return undefined;
}

function readPem(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InvalidInputError(`${flag} ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** node:https options of the files as they are now; throws when they are unreadable or do not match. */
export function httpsOptions(tls: TlsFiles): ServerOptions {
  const options: ServerOptions = { minVersion: 'TLSv1.2', cert: readPem('--tls-cert', tls.cert), key: readPem('--tls-key', tls.key) };
  // client certificates are asked for, not required: clients without one still authenticate by token
  if (tls.clientCa) Object.assign(options, { ca: readPem('--tls-client-ca', tls.clientCa), requestCert: true, rejectUnauthorized: false });
  try {
    createSecureContext(options);
  } catch (err) {
    throw new InvalidInputError(`--tls-cert ${tls.cert} / --tls-key ${tls.key}: ${(err as Error).message}`, { cause: err });
  }
  return options;
}

function changed(curr: Stats, prev: Stats): boolean {
  return curr.mtimeMs !== prev.mtimeMs || curr.ctimeMs !== prev.ctimeMs || curr.ino !== prev.ino || curr.size !== prev.size;
}

/**
 * Swaps the server's certificate when one of the files changes (stat polling follows the symlinks a
 * mounted Secret is replaced through). Open connections keep the certificate they shook hands with.
 * A pair caught half-written (new certificate, old key) is skipped until the other file changes too.
 */
export function reloadOnChange(app: FastifyInstance, tls: TlsFiles, log: Logger): void {
  const server = app.server as unknown as TlsServer;
  const paths = [tls.cert, tls.key, ...(tls.clientCa ? [tls.clientCa] : [])];
  const onChange = (curr: Stats, prev: Stats) => {
    if (!changed(curr, prev)) return;
    try {
      server.setSecureContext(httpsOptions(tls));
      log.info({ cert: tls.cert }, 'TLS certificate reloaded');
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'TLS files changed but do not load yet; keeping the previous certificate');
    }
  };
  for (const p of paths) watchFile(p, { interval: TLS_RELOAD_INTERVAL_MS, persistent: false }, onChange);
  app.addHook('onClose', async () => {
    for (const p of paths) unwatchFile(p, onChange);
  });
}
