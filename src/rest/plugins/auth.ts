import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../../errors.js';
import type { RestAuthConfig } from '../config.js';
import { constantTimeEqual, signToken, verifyToken } from '../jwt.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that need no X-Auth-Token (POST /token, the OpenAPI document). */
    public?: boolean;
  }
}

export const AUTH_CLOSED = 'server-auth-closed';

/** The admin token, re-read from its file on every request (rotation invalidates tokens at once). */
async function readAdminToken(auth: RestAuthConfig): Promise<string | undefined> {
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

/** Token auth (feilong-rest.md §2.5): POST /token, and an X-Auth-Token check before validation. */
export function registerAuth(app: FastifyInstance, auth: RestAuthConfig): void {
  app.addHook('onRequest', async (req) => {
    if (!auth.enabled || req.routeOptions.url === undefined || req.routeOptions.config.public) return;
    const token = header(req.headers['x-auth-token']);
    const key = await readAdminToken(auth);
    if (!token || !key || !verifyToken(token, key)) throw new UnauthorizedError('missing, invalid or expired X-Auth-Token');
  });

  app.post('/token', { config: { public: true }, schema: { summary: 'Exchange the admin token for an expiring auth token', tags: ['auth'] } }, async (req, reply) => {
    reply.type('text/html; charset=UTF-8');
    if (!auth.enabled) return reply.header('x-auth-token', AUTH_CLOSED).send('');
    const given = header(req.headers['x-admin-token']);
    const key = await readAdminToken(auth);
    if (!given || !key || !constantTimeEqual(given, key)) throw new UnauthorizedError('wrong or missing X-Admin-Token');
    return reply.header('x-auth-token', signToken(key, auth.tokenValiditySeconds)).send('');
  });
}
