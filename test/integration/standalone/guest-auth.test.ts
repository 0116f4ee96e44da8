/** Token auth on the guest routes over real HTTP (standalone): on and off, expired and tampered tokens. */
import { jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveSigningKey, signToken } from '../../../src/rest/jwt.js';
import { tempStateDir } from './helpers.js';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-tests-0123456789';
const UNAUTHORIZED = { overallRC: 400, rc: 400, rs: 401, modID: 120 };

describe('token auth on the guest routes (standalone, auth token)', () => {
  const files = tempStateDir();
  let w: GuestWorld;
  let token: string;
  beforeAll(async () => {
    const tokenFile = join(files.dir, 'token.dat');
    writeFileSync(tokenFile, `${ADMIN}\n`);
    w = await startGuestWorld({ auth: 'token', adminTokenFile: tokenFile });
    const res = await fetch(`${w.app.restUrl}/token`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN } });
    expect(res.status).toBe(200);
    token = res.headers.get('x-auth-token') ?? '';
  });
  afterAll(async () => {
    await w.stop();
    files.cleanup();
  });

  const withToken = (t: string) => ({ 'X-Auth-Token': t });

  it('issues an HS256 token only for the right admin token', async () => {
    expect(token.split('.')).toHaveLength(3);
    expect((await fetch(`${w.app.restUrl}/token`, { method: 'POST', headers: { 'X-Admin-Token': 'wrong' } })).status).toBe(401);
    expect((await fetch(`${w.app.restUrl}/token`, { method: 'POST' })).status).toBe(401);
  });

  it('lets a valid token through on reads, creates and actions', async () => {
    const created = await w.call('POST', '/guests', { guest: { userid: 'auth01', vcpus: 1, memory: 512 } }, withToken(token));
    expect(created.status).toBe(200);
    expect((await w.call('GET', '/guests', undefined, withToken(token))).body.output).toContain('AUTH01');
    expect((await w.call('POST', '/guests/auth01/action', { action: 'start' }, withToken(token))).status).toBe(200);
    expect((await w.call('GET', '/guests/auth01/power_state', undefined, withToken(token))).body.output).toBe('on');
  });

  const tamper = (t: string) => `${t.slice(0, -3)}${t.endsWith('AAA') ? 'BBB' : 'AAA'}`;
  it.each<[string, (valid: string) => Record<string, string>]>([
    ['no token', () => ({})],
    ['a tampered token', (valid) => withToken(tamper(valid))],
    ['an expired token', () => withToken(signToken(deriveSigningKey(ADMIN), 60, Date.now() - 3_600_000))],
    ['a token signed with another key', () => withToken(signToken(deriveSigningKey('another-admin-token'), 3600))],
  ])('refuses %s with 401 before validation or any change', async (_label, headersFor) => {
    const h = headersFor(token);
    expectError(await w.call('GET', '/guests', undefined, h), 401, UNAUTHORIZED);
    expectError(await w.call('GET', '/guests/auth01/info', undefined, h), 401, UNAUTHORIZED);
    // auth precedes validation: an invalid body still gets 401
    expectError(await w.call('POST', '/guests', { guest: { userid: 'auth02', vcpus: 0, memory: 512 } }, h), 401, UNAUTHORIZED);
    expectError(await w.call('POST', '/guests/auth01/action', { action: 'stop' }, h), 401, UNAUTHORIZED);
    expect(await w.hv.queryPowerState('AUTH01')).toBe('on');
    expect(await w.hv.describeGuest('AUTH02')).toBeUndefined();
  });
});

describe('token auth off (standalone, auth none)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
  });
  afterAll(() => w.stop());

  it('answers POST /token with server-auth-closed and serves the routes without a token', async () => {
    const res = await fetch(`${w.app.restUrl}/token`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-auth-token')).toBe('server-auth-closed');
    expect((await w.call('POST', '/guests', { guest: { userid: 'open01', vcpus: 1, memory: 512 } })).status).toBe(200);
    expect((await w.call('GET', '/guests/open01/power_state')).body.output).toBe('off');
    // a junk token is ignored when auth is off
    expect((await w.call('GET', '/guests', undefined, { 'X-Auth-Token': 'junk' })).status).toBe(200);
  });
});
