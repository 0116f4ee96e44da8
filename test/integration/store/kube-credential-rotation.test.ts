/**
 * Client certificates rotated on disk (a kubeconfig naming certificate and key files, as a projected
 * Secret or cert-manager leaves them): requests read the files once per TLS_MATERIAL_TTL_MS (http.ts),
 * and a request made a period after a rotation presents the new certificate, whatever another client
 * of the same KubeConfig (client-node's own API, as the Secret reader uses) read before. Over real TLS on
 * loopback: the server records the certificate each request came with.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { jest } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pooled } from '../../../src/store/kube/connection-pool.js';
import { kubeRequest, TLS_MATERIAL_TTL_MS } from '../../../src/store/kube/http.js';

const dir = mkdtempSync(join(tmpdir(), 'zvm-kube-rotation-'));

function selfSigned(name: string, ...extra: string[]): { cert: string; key: string } {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-keyout', pair.key, '-out', pair.cert, ...extra,
  ], { stdio: 'ignore' });
  return pair;
}

const serverPair = selfSigned('apiserver', '-addext', 'subjectAltName=IP:127.0.0.1');
const users = { one: selfSigned('user-one'), two: selfSigned('user-two'), other: selfSigned('user-other') };
/** the files the kubeconfig names, overwritten to rotate */
const current = { cert: join(dir, 'client.crt'), key: join(dir, 'client.key') };
const rotateTo = (u: { cert: string; key: string }): void => {
  copyFileSync(u.cert, current.cert);
  copyFileSync(u.key, current.key);
};

/** the CN of the client certificate of each request, in order */
const seen: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer({ cert: readFileSync(serverPair.cert), key: readFileSync(serverPair.key), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    seen.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? 'none'));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, data: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
  rotateTo(users.one);
  // only the clock the periods are read from; sockets and their timers run for real
  jest.useFakeTimers({ doNotFake: ['Date', 'hrtime', 'nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
});
afterEach(() => jest.useRealTimers());

function kubeconfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, caFile: serverPair.cert }],
    users: [
      { name: 'u', certFile: current.cert, keyFile: current.key },
      { name: 'v', certFile: users.other.cert, keyFile: users.other.key },
    ],
    contexts: [{ name: 'a', cluster: 'c', user: 'u' }, { name: 'b', cluster: 'c', user: 'v' }],
    currentContext: 'a',
  });
  return pooled(kc);
}

const get = (kc: KubeConfig) => kubeRequest(kc, { method: 'GET', path: '/api/v1/namespaces/ns/secrets/s', signal: AbortSignal.timeout(10_000) });

test('requests within the period share one reading of the files; the first request a period later presents the rotated certificate', async () => {
  const kc = kubeconfig();
  await get(kc);
  rotateTo(users.two);
  await get(kc);
  jest.advanceTimersByTime(TLS_MATERIAL_TTL_MS + 1);
  await get(kc);
  expect(seen).toEqual(['user-one', 'user-one', 'user-two']);
});

test('a rotation is picked up one period after it, even when client-node\'s own API read the files earlier', async () => {
  const kc = kubeconfig();
  // the Secret reader (cmd/kube-secrets.ts) goes through client-node's generated API on the same KubeConfig
  await kc.makeApiClient(CoreV1Api).readNamespacedSecret({ name: 's', namespace: 'ns' });
  rotateTo(users.two);
  jest.advanceTimersByTime(TLS_MATERIAL_TTL_MS - 100);
  await get(kc); // a first request after the rotation
  expect(seen).toEqual(['user-one', 'user-two']);
});

test('another current context gets its own credentials at once', async () => {
  const kc = kubeconfig();
  await get(kc);
  kc.setCurrentContext('b');
  await get(kc);
  expect(seen).toEqual(['user-one', 'user-other']);
});
