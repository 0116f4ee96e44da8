import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { UnauthorizedError } from '../../errors.js';
import type { RestAuthConfig } from '../config.js';
import { constantTimeEqual, deriveSigningKey, signToken, verifyToken } from '../jwt.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that need no X-Auth-Token (POST /token, the OpenAPI document). */
    public?: boolean;
  }
}

export const AUTH_CLOSED = 'server-auth-closed';

/** Where the admin token comes from: a file re-read on every use, or a value read once at start. */
export type AdminTokenSource = Pick<RestAuthConfig, 'adminTokenFile' | 'adminToken'>;

/** The admin token, re-read from its file on every request (rotation invalidates tokens at once). */
export async function readAdminToken(auth: AdminTokenSource): Promise<string | undefined> {
  if (auth.adminTokenFile) {
    try {
      const text = (await readFile(auth.adminTokenFile, 'utf8')).trim();
      return text === '' ? undefined : text;
    } catch {
      return undefined; // unreadable or missing file: every token check fails with 401, as in the reference
    }
  }
  return auth.adminToken?.trim() || undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The connection presented a certificate that --tls-client-ca vouches for (only asked for when it is set). */
function hasVerifiedClientCertificate(req: Pick<IncomingMessage, 'socket'>): boolean {
  return req.socket instanceof TLSSocket && req.socket.authorized;
}

/**
 * True when the connection carries a verified client certificate, or the request a valid, unexpired
 * X-Auth-Token, or (when `acceptAdminToken`, as the admin API does for the CLI) the admin token itself
 * in X-Admin-Token.
 */
export async function isAuthenticated(req: Pick<IncomingMessage, 'headers' | 'socket'>, auth: AdminTokenSource, opts: { acceptAdminToken?: boolean } = {}): Promise<boolean> {
  if (hasVerifiedClientCertificate(req)) return true;
  const { headers } = req;
  const adminToken = await readAdminToken(auth);
  if (!adminToken) return false;
  const token = header(headers['x-auth-token']);
  if (token && verifyToken(token, deriveSigningKey(adminToken))) return true;
  const given = opts.acceptAdminToken ? header(headers['x-admin-token']) : undefined;
  return given !== undefined && constantTimeEqual(given, adminToken);
}

/** Token auth (docs/rest-interface.md §2.5): POST /token, and an X-Auth-Token check before validation. */
export function registerAuth(app: FastifyInstance, auth: RestAuthConfig): void {
  // with auth off no hook at all: every request would pay for one that says yes
  if (auth.enabled) {
    app.addHook('onRequest', async (req) => {
      if (req.routeOptions.url === undefined || req.routeOptions.config.public) return;
      if (!(await isAuthenticated(req.raw, auth))) throw new UnauthorizedError('missing, invalid or expired X-Auth-Token');
    });
  }

  app.post('/token', { config: { public: true }, schema: { summary: 'Exchange the admin token for an expiring auth token', tags: ['auth'] } }, async (req, reply) => {
    reply.type('text/html; charset=UTF-8');
    if (!auth.enabled) return reply.header('x-auth-token', AUTH_CLOSED).send('');
    const given = header(req.headers['x-admin-token']);
    const key = await readAdminToken(auth);
    if (!given || !key || !constantTimeEqual(given, key)) throw new UnauthorizedError('wrong or missing X-Admin-Token');
    return reply.header('x-auth-token', signToken(deriveSigningKey(key), auth.tokenValiditySeconds)).send('');
  });
}
