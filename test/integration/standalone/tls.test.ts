/**
 * HTTPS on the standalone listeners: the shipped command refusing token auth in clear on a network address
 * and serving curl over HTTPS; a certificate rotated on disk under open connections; client certificates (mTLS).
 */
import { jest } from '@jest/globals';
import { execFile, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestPki } from '../../kube/pki.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { runZvm, spawnZvm } from '../../builders/zvm.js';
import { freePorts } from '../../kube/processes.js';
import { startTestStandalone, tempStateDir } from './helpers.js';
import { fingerprint, https, presentedUntil, testPki } from './https.js';

jest.setTimeout(120_000);
const run = promisify(execFile);

const ADMIN = 'tls-admin-token-0123456789abcdef';

describe('the standalone command', () => {
  const state = tempStateDir();
  let proc: ChildProcess | undefined;
  afterAll(() => {
    proc?.kill('SIGKILL');
    state.cleanup();
  });

  it('exits before listening and says why', async () => {
    const stateDir = join(state.dir, 'never');
    const started = runZvm(['standalone', '--bind', '0.0.0.0', '--auth', 'token', '--state-dir', stateDir]);
    const failure = (await started.then(() => undefined, (err: unknown) => err)) as { code?: number; stderr?: string } | undefined;
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/refusing to start: --auth token on 0\.0\.0\.0 without TLS sends the admin token and every auth token in clear/);
    expect(failure?.stderr).toMatch(/--tls-cert and --tls-key.*--insecure-plain-http/);
    expect(existsSync(stateDir)).toBe(false);
  });

  it('serves HTTPS with the pair from ZVM_TLS_CERT/ZVM_TLS_KEY: curl --cacert on GET / answers 401 without a token, POST /token 200', async () => {
    const pki = await testPki(join(state.dir, 'pki'));
    writeFileSync(join(state.dir, 'admin-token'), `${ADMIN}\n`);
    const [port, adminPort] = await freePorts(2);
    const args = ['standalone', '--bind', '127.0.0.1', '--port', String(port), '--admin-port', String(adminPort), '--auth', 'token', '--admin-token-file', join(state.dir, 'admin-token'), '--state-dir', join(state.dir, 'state')];
    proc = spawnZvm(args, { stdio: 'ignore', env: { ...process.env, ZVM_TLS_CERT: pki.serving.cert, ZVM_TLS_KEY: pki.serving.key } });
    const curl = (...more: string[]) => run('curl', ['-sS', '--cacert', pki.caCert, ...more, '-o', '/dev/null', '-w', '%{http_code}', `https://127.0.0.1:${port}/`]).then((r) => r.stdout, () => 'no answer');
    let status = await curl();
    for (let i = 0; i < 300 && status !== '401'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await curl();
    }
    expect(status).toBe('401');
    const { stdout } = await run('curl', ['-sS', '--cacert', pki.caCert, '-X', 'POST', '-H', `X-Admin-Token: ${ADMIN}`, '-o', '/dev/null', '-w', '%{http_code}', `https://127.0.0.1:${port}/token`]);
    expect(stdout).toBe('200');
    expect(proc.exitCode).toBeNull();
  });

});

describe('standalone over HTTPS with token auth', () => {
  const state = tempStateDir();
  const tls = { cert: join(state.dir, 'serving.crt'), key: join(state.dir, 'serving.key') };
  let first: TestPki;
  let second: TestPki;
  let app: Standalone;
  beforeAll(async () => {
    [first, second] = await Promise.all([testPki(join(state.dir, 'pki-1')), testPki(join(state.dir, 'pki-2'))]);
    copyFileSync(first.serving.cert, tls.cert);
    copyFileSync(first.serving.key, tls.key);
    writeFileSync(join(state.dir, 'admin-token'), `${ADMIN}\n`);
    app = await startTestStandalone(join(state.dir, 'state'), {
      auth: 'token', adminTokenFile: join(state.dir, 'admin-token'), tlsCert: tls.cert, tlsKey: tls.key, tlsClientCa: first.caCert,
    });
  });
  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });

  it('answers curl --cacert on GET / (401 without a token, 200 with one), and REST routes need a token too', async () => {
    expect(app.restUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const curl = async (...headers: string[]) => (await run('curl', ['-sS', '--cacert', first.caCert, ...headers, '-o', '/dev/null', '-w', '%{http_code}', `${app.restUrl}/`])).stdout;
    expect(await curl()).toBe('401');
    expect((await https({ ca: first.caCert }, app.restUrl, 'GET', '/guests')).status).toBe(401);
    const token = (await https({ ca: first.caCert }, app.restUrl, 'POST', '/token', undefined, { 'X-Admin-Token': ADMIN })).headers.get('x-auth-token') ?? '';
    expect(await curl('-H', `X-Auth-Token: ${token}`)).toBe('200');
    expect((await https({ ca: first.caCert }, app.restUrl, 'GET', '/guests', undefined, { 'X-Auth-Token': token })).status).toBe(200);
  });

  it('serves the admin listener over HTTPS too, and never TLS 1.1 or plain HTTP', async () => {
    expect(app.adminUrl).toMatch(/^https:/);
    expect(await https({ ca: first.caCert }, app.adminUrl, 'GET', '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    const old = await run('curl', ['-sS', '--tls-max', '1.1', '--cacert', first.caCert, `${app.restUrl}/`]).then(() => 'answered', (err: { code?: number }) => err.code);
    expect(old).not.toBe('answered');
    const plain = await fetch(app.restUrl.replace('https:', 'http:')).then((r) => r.status, () => 'refused');
    expect(plain).toBe('refused');
  });

  it('authenticates a client certificate from --tls-client-ca like a token, and refuses one from another CA', async () => {
    const good = await https({ ca: first.caCert, client: first.clients.machine }, app.restUrl, 'GET', '/guests');
    expect(good.status).toBe(200);
    const bad = await https({ ca: first.caCert, client: second.clients.machine }, app.restUrl, 'GET', '/guests');
    expect({ status: bad.status, rc: bad.body.overallRC }).toEqual({ status: 401, rc: 400 });
    const admin = await https({ ca: first.caCert, client: first.clients.machine }, app.adminUrl, 'GET', '/resources/zguest');
    expect(admin.status).toBe(200);
    expect((await https({ ca: first.caCert, client: second.clients.machine }, app.adminUrl, 'GET', '/resources/zguest')).status).toBe(401);
  });

  it('takes a certificate rotated on disk without a restart: open connections keep working, new ones see the new certificate', async () => {
    const cas = [first.caCert, second.caCert];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await https({ ca: cas, agent }, app.restUrl, 'POST', '/token', undefined, { 'X-Admin-Token': ADMIN })).headers.get('x-auth-token') ?? '';
    const before = await https({ ca: cas, agent }, app.restUrl, 'GET', '/', undefined, { 'X-Auth-Token': token });
    expect(before.serverCert).toBe(fingerprint(first.serving.cert));

    // as a Secret update lands: the key and the certificate replaced, one file after the other
    copyFileSync(second.serving.key, tls.key);
    copyFileSync(second.serving.cert, tls.cert);
    const wanted = fingerprint(second.serving.cert);
    expect(await presentedUntil(app.restUrl, cas, wanted)).toBe(wanted);
    expect(await presentedUntil(app.adminUrl, cas, wanted)).toBe(wanted);

    const after = await https({ ca: cas, agent }, app.restUrl, 'GET', '/', undefined, { 'X-Auth-Token': token });
    expect({ status: after.status, reused: after.reusedSocket, cert: after.serverCert }).toEqual({ status: 200, reused: true, cert: fingerprint(first.serving.cert) });
    agent.destroy();
  });
});
