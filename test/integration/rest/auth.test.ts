import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { deriveSigningKey, signToken, verifyToken } from '../../../src/rest/index.js';
import { aRestWorld, type RestWorld } from './support/world.js';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('REST token auth', () => {
  let w: RestWorld;
  let file: string;
  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'zvm-rest-')), 'token.dat');
    writeFileSync(file, 'admin-secret-1\n');
    w = await aRestWorld({ auth: { enabled: true, adminTokenFile: file, tokenValiditySeconds: 60 } });
  });
  afterAll(async () => { await w.close(); });

  const token = async (admin?: string) => w.inject({ method: 'POST', url: '/token', headers: admin ? { 'x-admin-token': admin } : {} });

  it('issues an HS256 token for the admin token, with an empty body', async () => {
    const res = await token('admin-secret-1');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    const [header, payload] = res.headers['x-auth-token']!.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(Object.keys(JSON.parse(Buffer.from(payload!, 'base64url').toString()))).toEqual(['exp']);
  });

  it('answers a wrong or missing admin token 401 with the Fault body', async () => {
    for (const res of [await token('nope'), await token()]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ overallRC: 400, rc: 400, rs: 401, modID: 120, output: '' });
      expect(res.json().errmsg).toMatch(/^This server could not verify that you are authorized/);
    }
  });

  it('lets a valid token through and refuses missing, tampered and expired ones', async () => {
    const good = (await token('admin-secret-1')).headers['x-auth-token']!;
    expect((await w.inject({ method: 'GET', url: '/guests', headers: { 'x-auth-token': good } })).statusCode).toBe(200);
    expect((await w.inject({ method: 'GET', url: '/guests' })).statusCode).toBe(401);
    const tampered = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await w.inject({ method: 'GET', url: '/guests', headers: { 'x-auth-token': tampered } })).statusCode).toBe(401);
    const expired = signToken(deriveSigningKey('admin-secret-1'), 60, Date.now() - 3_600_000);
    expect((await w.inject({ method: 'GET', url: '/guests', headers: { 'x-auth-token': expired } })).statusCode).toBe(401);
  });

  it('answers GET / without a token 401 with the envelope, as the reference\'s version handler (tokens.validate), and 200 with one', async () => {
    const res = await w.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ overallRC: 400, rc: 400, rs: 401, modID: 120, output: '' });
    const good = (await token('admin-secret-1')).headers['x-auth-token']!;
    const ok = await w.inject({ method: 'GET', url: '/', headers: { 'x-auth-token': good } });
    expect({ status: ok.statusCode, api: ok.json().output.api_version }).toEqual({ status: 200, api: '1.0' });
  });

  it('refuses a token without exp even when correctly signed', async () => {
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'admin' })}`;
    const noExp = `${input}.${createHmac('sha256', deriveSigningKey('admin-secret-1')).update(input).digest('base64url')}`;
    expect((await w.inject({ method: 'GET', url: '/guests', headers: { 'x-auth-token': noExp } })).statusCode).toBe(401);
  });

  it('issues tokens for the configured lifetime, signed with a key derived from the admin token', async () => {
    const before = Math.floor(Date.now() / 1000);
    const t = (await token('admin-secret-1')).headers['x-auth-token']!;
    const { exp } = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as { exp: number };
    expect(exp - before).toBeGreaterThanOrEqual(60);
    expect(exp - before).toBeLessThanOrEqual(61);
    expect(verifyToken(t, deriveSigningKey('admin-secret-1'))).toBe(true);
    expect(verifyToken(t, 'admin-secret-1')).toBe(false);
  });

  it('invalidates issued tokens when the admin token file is rotated', async () => {
    const before = (await token('admin-secret-1')).headers['x-auth-token']!;
    writeFileSync(file, 'admin-secret-2');
    try {
      expect((await w.inject({ method: 'GET', url: '/guests', headers: { 'x-auth-token': before } })).statusCode).toBe(401);
      expect((await token('admin-secret-2')).statusCode).toBe(200);
    } finally {
      writeFileSync(file, 'admin-secret-1');
    }
  });

  it('answers routing errors before auth and auth before validation', async () => {
    expect((await w.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    expect((await w.inject({ method: 'PUT', url: '/guests' })).statusCode).toBe(405);
    const res = await w.inject({ method: 'POST', url: '/guests', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expect(res.statusCode).toBe(401);
  });
});

describe('REST with auth disabled', () => {
  it('answers POST /token with server-auth-closed', async () => {
    const w = await aRestWorld();
    try {
      const res = await w.inject({ method: 'POST', url: '/token' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-auth-token']).toBe('server-auth-closed');
    } finally {
      await w.close();
    }
  });
});
