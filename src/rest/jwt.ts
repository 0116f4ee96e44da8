import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** HS256 JSON Web Tokens as the reference issues them (feilong-rest.md §2.5): payload only `exp`. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(input: string, key: string): string {
  return createHmac('sha256', key).update(input).digest('base64url');
}

/** Equal-time comparison whatever the lengths: both sides are hashed to 32 bytes first. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function signToken(key: string, validitySeconds: number, nowMs: number = Date.now()): string {
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

/** True when signed with `key` by HS256 and not expired (no leeway); a token without `exp` is valid. */
export function verifyToken(token: string, key: string, nowMs: number = Date.now()): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  if (header?.alg !== 'HS256') return false;
  if (!constantTimeEqual(sign(`${h}.${p}`, key), s)) return false;
  const payload = decodeJson(p);
  if (!payload) return false;
  if (payload.exp === undefined) return true;
  return typeof payload.exp === 'number' && payload.exp > Math.floor(nowMs / 1000);
}
