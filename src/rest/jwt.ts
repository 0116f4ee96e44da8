import { createHash, createHmac, scryptSync, timingSafeEqual } from 'node:crypto';

/** HS256 JSON Web Tokens as the reference issues them (docs/rest-interface.md §2.5): payload only `exp`. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Fixed context of the signing-key derivation; changing it invalidates every issued token. */
const SIGNING_CONTEXT = 'zvm-operator/rest-token-signing/v1';
/** scrypt cost: one derivation takes tens of milliseconds, so each offline guess of the admin token does too. */
const SCRYPT = { N: 16384, r: 8, p: 1 } as const;

let lastDerived: { adminToken: string; key: Buffer } | undefined;

/**
 * The key that signs auth tokens: derived from the admin token with scrypt and a fixed context, never
 * the admin token itself. A leaked auth token then only allows guessing the admin token at scrypt's
 * cost per guess. Every REST replica derives the same key from the same admin token; the last result
 * is kept because the admin token is re-read (and usually unchanged) on every request.
 */
export function deriveSigningKey(adminToken: string): Buffer {
  if (lastDerived?.adminToken === adminToken) return lastDerived.key;
  const key = scryptSync(adminToken, SIGNING_CONTEXT, 32, SCRYPT);
  lastDerived = { adminToken, key };
  return key;
}

function sign(input: string, key: string | Buffer): string {
  return createHmac('sha256', key).update(input).digest('base64url');
}

/** Equal-time comparison whatever the lengths: both sides are hashed to 32 bytes first. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** `key` is the signing key (see deriveSigningKey), not the admin token. */
export function signToken(key: string | Buffer, validitySeconds: number, nowMs: number = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ exp: Math.floor(nowMs / 1000) + validitySeconds })).toString('base64url');
  const input = `${HEADER}.${payload}`;
  return `${input}.${sign(input, key)}`;
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // not JSON: the caller treats the token as invalid
  }
}

/** True when signed with `key` by HS256 and not expired (no leeway); a token without a numeric `exp` is refused. */
export function verifyToken(token: string, key: string | Buffer, nowMs: number = Date.now()): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  if (header?.alg !== 'HS256') return false;
  if (!constantTimeEqual(sign(`${h}.${p}`, key), s)) return false;
  const payload = decodeJson(p);
  return typeof payload?.exp === 'number' && payload.exp > Math.floor(nowMs / 1000);
}
