import { createHmac } from 'node:crypto';
import { constantTimeEqual, deriveSigningKey, signToken, verifyToken } from '../../../src/rest/jwt.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('HS256 auth tokens', () => {
  it('verifies a fresh token with its key and no other', () => {
    const t = signToken('k1', 3600, NOW);
    expect(verifyToken(t, 'k1', NOW)).toBe(true);
    expect(verifyToken(t, 'k2', NOW)).toBe(false);
  });

  it('puts only exp = now + validity in the payload', () => {
    const payload = JSON.parse(Buffer.from(signToken('k', 60, NOW).split('.')[1]!, 'base64url').toString());
    expect(payload).toEqual({ exp: NOW / 1000 + 60 });
  });

  it('refuses a token at or after its exp, with no leeway', () => {
    const t = signToken('k', 60, NOW);
    expect(verifyToken(t, 'k', NOW + 59_999)).toBe(true);
    expect(verifyToken(t, 'k', NOW + 60_000)).toBe(false);
  });

  it('refuses a tampered payload and malformed tokens', () => {
    const [h, , s] = signToken('k', 60, NOW).split('.');
    expect(verifyToken(`${h}.${b64({ exp: NOW / 1000 + 99999 })}.${s}`, 'k', NOW)).toBe(false);
    expect(verifyToken('abc', 'k', NOW)).toBe(false);
    expect(verifyToken('a.b.c', 'k', NOW)).toBe(false);
  });

  it('refuses another algorithm in the header', () => {
    const [, p, s] = signToken('k', 60, NOW).split('.');
    expect(verifyToken(`${b64({ alg: 'none', typ: 'JWT' })}.${p}.${s}`, 'k', NOW)).toBe(false);
  });

  it('refuses a correctly signed token without exp, or with a non-numeric exp', () => {
    const h = b64({ alg: 'HS256', typ: 'JWT' });
    const signed = (payload: unknown) => {
      const input = `${h}.${b64(payload)}`;
      return `${input}.${createHmac('sha256', 'k').update(input).digest('base64url')}`;
    };
    expect(verifyToken(signed({ exp: NOW / 1000 + 60 }), 'k', NOW)).toBe(true);
    expect(verifyToken(signed({}), 'k', NOW)).toBe(false);
    expect(verifyToken(signed({ exp: String(NOW / 1000 + 60) }), 'k', NOW)).toBe(false);
  });

  it('derives the signing key from the admin token: stable, 32 bytes, never the token itself', () => {
    const key = deriveSigningKey('admin-token-1');
    expect(key).toHaveLength(32);
    expect(deriveSigningKey('admin-token-1').equals(key)).toBe(true);
    expect(deriveSigningKey('admin-token-2').equals(key)).toBe(false);
    expect(key.equals(Buffer.from('admin-token-1'))).toBe(false);
    // a token signed with the admin token itself is not accepted by the derived key
    expect(verifyToken(signToken('admin-token-1', 60, NOW), key, NOW)).toBe(false);
  });

  it('compares strings of any length', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });
});
