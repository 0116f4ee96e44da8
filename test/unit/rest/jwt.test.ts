import { constantTimeEqual, signToken, verifyToken } from '../../../src/rest/jwt.js';

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

  it('compares strings of any length', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });
});
