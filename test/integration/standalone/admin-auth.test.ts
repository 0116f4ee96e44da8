/** The admin (resource) API with --auth token: every resource route needs the REST credentials; it binds to loopback. */
import { jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { runZvm } from '../../builders/zvm.js';
import { runPlugin } from '../../kubectl-zvm/plugin.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

jest.setTimeout(90_000);

const ADMIN = 'admin-api-token-0123456789abcdef';
const guest = (name: string) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name }, spec: { userid: name.toUpperCase(), vcpus: 1, memory: '512M' } });

describe('admin API with auth token', () => {
  const state = tempStateDir();
  const tokenFile = join(state.dir, 'admin-token');
  let app: Standalone;
  beforeAll(async () => {
    writeFileSync(tokenFile, `${ADMIN}\n`);
    // REST on another loopback address: the admin API must not follow it
    app = await startTestStandalone(join(state.dir, 'state'), { auth: 'token', adminTokenFile: tokenFile, bind: '127.0.0.2' });
  });
  afterAll(async () => {
    await app.stop();
    state.cleanup();
  });

  it('listens on 127.0.0.1 by default even when REST binds elsewhere', () => {
    expect(new URL(app.restUrl).hostname).toBe('127.0.0.2');
    expect(new URL(app.adminUrl).hostname).toBe('127.0.0.1');
  });

  it('refuses an unauthenticated apply, read and delete with 401 and changes nothing', async () => {
    const created = await http(app.adminUrl, 'POST', '/apply', guest('noauth1'));
    expect(created.status).toBe(401);
    expect(await app.store.get('ZGuest', { namespace: 'default', name: 'noauth1' })).toBeUndefined();

    const wrong = await http(app.adminUrl, 'POST', '/apply', guest('noauth1'), { 'x-admin-token': 'not-the-token' });
    expect(wrong.status).toBe(401);
    expect(await app.store.get('ZGuest', { namespace: 'default', name: 'noauth1' })).toBeUndefined();

    expect((await http(app.adminUrl, 'POST', '/apply', guest('kept1'), { 'x-admin-token': ADMIN })).status).toBe(200);
    expect((await http(app.adminUrl, 'DELETE', '/resources/zguests/kept1')).status).toBe(401);
    expect((await http(app.adminUrl, 'GET', '/resources/zguests')).status).toBe(401);
    expect(await app.store.get('ZGuest', { namespace: 'default', name: 'kept1' })).toBeDefined();
  });

  it('accepts an auth token from REST POST /token', async () => {
    const res = await fetch(`${app.restUrl}/token`, { method: 'POST', headers: { 'x-admin-token': ADMIN } });
    const token = res.headers.get('x-auth-token') ?? '';
    const listed = await http<unknown>(app.adminUrl, 'GET', '/resources/zguests', undefined, { 'x-auth-token': token });
    expect(listed.status).toBe(200);
    expect((await http(app.adminUrl, 'GET', '/resources/zguests', undefined, { 'x-auth-token': `${token}x` })).status).toBe(401);
  });

  it('guards the routes of kubectl zvm too: create, patch, watch, host reads and uploads need the credentials', async () => {
    expect((await http(app.adminUrl, 'POST', '/resources/zguests', guest('noauth2'))).status).toBe(401);
    expect((await http(app.adminUrl, 'PATCH', '/resources/zguests/kept1', { spec: { vcpus: 2 } })).status).toBe(401);
    expect((await http(app.adminUrl, 'GET', '/hosts/default/guests')).status).toBe(401);
    expect((await fetch(`${app.adminUrl}/watch/zguests`)).status).toBe(401);
    expect((await http(app.adminUrl, 'GET', '/hosts/default/guests/KEPT1/console')).status).toBe(401);
    expect((await fetch(`${app.adminUrl}/files`, { method: 'PUT', body: 'x' })).status).toBe(401);
    expect(await app.store.get('ZGuest', { namespace: 'default', name: 'noauth2' })).toBeUndefined();
    expect((await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'kept1' }))?.spec.vcpus).toBe(1);

    const refused = await runPlugin(['stop', 'kept1', '--server', app.adminUrl]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: the admin API needs X-Admin-Token/);
    const stopped = await runPlugin(['stop', 'kept1', '--server', app.adminUrl, '--admin-token-file', tokenFile]);
    expect(stopped.code).toBe(0);
    expect((await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'kept1' }))?.spec.powerState).toBe('Stopped');
  });

  it('keeps probes and metrics open', async () => {
    expect((await fetch(`${app.adminUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${app.adminUrl}/metrics`)).status).toBe(200);
  });

  it('serves the CLI with --admin-token-file, and refuses it without', async () => {
    const file = join(state.dir, 'g.yaml');
    writeFileSync(file, JSON.stringify(guest('cli1')));
    const cli = (args: string[]) => runZvm([...args, '--server', app.adminUrl], { env: { ...process.env, ZVM_ADMIN_TOKEN_FILE: '' } });
    await expect(cli(['apply', '-f', file])).rejects.toMatchObject({ stderr: expect.stringContaining('401') });
    expect((await cli(['apply', '-f', file, '--admin-token-file', tokenFile])).stdout).toContain('zguest.zvm.dev/cli1 created');
    expect((await cli(['get', 'zg', 'cli1', '-o', 'json', '--admin-token-file', tokenFile])).stdout).toContain('"CLI1"');
    expect((await cli(['delete', 'zg', 'cli1', '--admin-token-file', tokenFile])).stdout).toContain('deleted');
  });
});
