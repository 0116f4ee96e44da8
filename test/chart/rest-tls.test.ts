/**
 * The chart's rest.tls: what it renders, and the rest container started with exactly the rendered args
 * against files laid out as the kubelet mounts a Secret (timestamped directory behind a `..data` symlink).
 * REST needs no API server to answer its probes (rest-metrics /healthz, /readyz) or to shake hands, so its kubeconfig points
 * at a closed port; the kube tier runs the whole pod.
 */
import { jest } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runZvm, spawnZvm } from '../builders/zvm.js';
import { freePorts } from '../kube/processes.js';
import type { TestPki } from '../kube/pki.js';
import { fingerprint, https, presentedUntil, testPki } from '../integration/standalone/https.js';
import { find, renderChart, type Manifest } from './render.js';
import { container, podSpec, type Container } from './workload.js';

jest.setTimeout(120_000);

type Probe = { httpGet: { path: string; port: string; scheme: string } };
const rest = (out: Manifest[], deployment = 'zvm-operator'): Container => container(find(out, 'Deployment', deployment), 'rest')!;
const volume = (out: Manifest[], name: string, deployment = 'zvm-operator') => podSpec(find(out, 'Deployment', deployment)).volumes?.find((v) => v.name === name);

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: none, cluster: { server: "https://127.0.0.1:1" } }]
users: [{ name: none, user: { token: none } }]
contexts: [{ name: none, context: { cluster: none, user: none, namespace: zvm-system } }]
current-context: none
`;

/** The container's args with its mounts under `root` (as the kubelet would mount them), REST and its metrics on loopback ports. */
function localArgs(args: string[], root: string, port: number, metricsPort: number): string[] {
  return [
    ...args.map((a) => a.replace('$(POD_NAMESPACE)', 'zvm-system').replace('/etc/zvm-operator/', `${root}/`).replace(/^--port=\d+$/, `--port=${port}`)
      .replace(/^--metrics-bind-address=:\d+$/, `--metrics-bind-address=127.0.0.1:${metricsPort}`)),
    '--bind=127.0.0.1', `--kubeconfig=${join(root, 'kubeconfig')}`,
  ];
}

/** A Secret volume as the kubelet writes it: files in a timestamped directory, `..data` swapped atomically on update. */
function writeSecretVolume(dir: string, files: Record<string, string>, generation: number): void {
  mkdirSync(dir, { recursive: true });
  const data = join(dir, `..gen_${generation}`);
  mkdirSync(data);
  for (const [name, from] of Object.entries(files)) copyFileSync(from, join(data, name));
  symlinkSync(`..gen_${generation}`, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const name of Object.keys(files)) if (generation === 1) symlinkSync(join('..data', name), join(dir, name));
}

describe('rest.tls defaults', () => {
  it('serve plain HTTP on purpose: --insecure-plain-http, the probes on the open rest-metrics port (GET / needs a token), no Certificate', async () => {
    const out = await renderChart();
    expect(rest(out).args).toContain('--insecure-plain-http');
    expect(rest(out).args?.filter((a) => a.startsWith('--tls-'))).toEqual([]);
    expect([rest(out).livenessProbe, rest(out).readinessProbe].map((p) => (p as Probe).httpGet)).toEqual([
      { path: '/healthz', port: 'rest-metrics', scheme: 'HTTP' }, { path: '/readyz', port: 'rest-metrics', scheme: 'HTTP' },
    ]);
    expect(out.filter((m) => m.kind === 'Certificate')).toEqual([]);
  });

  it('with insecurePlainHttp=false and no TLS, the rendered REST container refuses to start and says why', async () => {
    const out = await renderChart({ set: ['rest.tls.insecurePlainHttp=false'] });
    const args = rest(out).args!.map((a) => a.replace('$(POD_NAMESPACE)', 'zvm-system'));
    const failure = (await runZvm(args).then(() => undefined, (err: unknown) => err)) as { code?: number; stderr?: string } | undefined;
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/refusing to start: --auth token on 0\.0\.0\.0 without TLS/);
  });
});

describe('rest.tls.certManager', () => {
  it.each([
    ['in the controller pod', [], 'zvm-operator', 'zvm-operator'],
    ['in its own Deployment', ['rest.separateDeployment=true'], 'zvm-operator-rest', 'zvm-operator-rest'],
  ])('issues a Certificate for the REST Service into the Secret the pod mounts (%s)', async (_layout, set, deployment, service) => {
    const out = await renderChart({ set: [...set, 'rest.tls.certManager.issuer=site-ca', 'rest.tls.certManager.issuerKind=ClusterIssuer', 'rest.tls.certManager.dnsNames={zvm.example.com}'] });
    const cert = find(out, 'Certificate', 'zvm-operator-rest').spec as { secretName: string; issuerRef: unknown; dnsNames: string[] };
    expect(cert.issuerRef).toEqual({ group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'site-ca' });
    expect(cert.dnsNames).toEqual([service, `${service}.zvm-system.svc`, `${service}.zvm-system.svc.cluster.local`, 'zvm.example.com']);
    expect(volume(out, 'rest-tls', deployment)?.secret?.secretName).toBe(cert.secretName);
    expect(rest(out, deployment).args).toEqual(expect.arrayContaining(['--tls-cert=/etc/zvm-operator/tls/tls.crt', '--tls-key=/etc/zvm-operator/tls/tls.key']));
    // the probes stay on the plain metrics listener: TLS serves the REST port only
    expect((rest(out, deployment).readinessProbe as Probe).httpGet).toEqual({ path: '/readyz', port: 'rest-metrics', scheme: 'HTTP' });
  });

  it('is not rendered when rest.tls.secretName names a Secret', async () => {
    const out = await renderChart({ set: ['rest.tls.certManager.issuer=site-ca', 'rest.tls.secretName=mine'] });
    expect(out.filter((m) => m.kind === 'Certificate')).toEqual([]);
    expect(volume(out, 'rest-tls')?.secret?.secretName).toBe('mine');
  });
});

describe('rest.tls.secretName with a client CA, run as rendered', () => {
  const root = mkdtempSync(join(tmpdir(), 'zvm-chart-tls-'));
  let first: TestPki;
  let second: TestPki;
  let out: Manifest[];
  let proc: ChildProcess | undefined;
  let url = '';
  afterAll(() => {
    proc?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('mounts whole Secrets (no subPath, so updates reach the files) and drops --insecure-plain-http', async () => {
    out = await renderChart({ set: ['rest.tls.secretName=rest-tls', 'rest.tls.clientCaSecret=machines', 'rest.tls.clientCaKey=bundle.pem'] });
    const c = rest(out);
    expect(c.args).toEqual(expect.arrayContaining(['--tls-cert=/etc/zvm-operator/tls/tls.crt', '--tls-key=/etc/zvm-operator/tls/tls.key', '--tls-client-ca=/etc/zvm-operator/client-ca/ca.crt']));
    expect(c.args).not.toContain('--insecure-plain-http');
    expect(c.volumeMounts?.filter((m) => m.name.startsWith('rest-'))).toEqual([
      { name: 'rest-token', mountPath: '/etc/zvm-operator/token', readOnly: true },
      { name: 'rest-tls', mountPath: '/etc/zvm-operator/tls', readOnly: true },
      { name: 'rest-client-ca', mountPath: '/etc/zvm-operator/client-ca', readOnly: true },
    ]);
    expect(volume(out, 'rest-client-ca')?.secret).toEqual({ secretName: 'machines', items: [{ key: 'bundle.pem', path: 'ca.crt' }] });
  });

  it('serves HTTPS: the rendered probe answers 200, GET / needs a token and a client certificate authenticates', async () => {
    [first, second] = await Promise.all([testPki(join(root, 'pki-1')), testPki(join(root, 'pki-2'))]);
    writeSecretVolume(join(root, 'tls'), { 'tls.crt': first.serving.cert, 'tls.key': first.serving.key }, 1);
    writeSecretVolume(join(root, 'client-ca'), { 'ca.crt': first.caCert }, 1);
    writeFileSync(join(root, 'admin-token'), 'chart-tls-admin-token\n');
    writeSecretVolume(join(root, 'token'), { token: join(root, 'admin-token') }, 1);
    writeFileSync(join(root, 'kubeconfig'), KUBECONFIG);
    const [port, metricsPort] = await freePorts(2);
    proc = spawnZvm(localArgs(rest(out).args!, root, port, metricsPort), { stdio: 'ignore' });
    url = `https://127.0.0.1:${port}`;
    const probe = (rest(out).readinessProbe as Probe).httpGet;
    expect({ port: probe.port, scheme: probe.scheme }).toEqual({ port: 'rest-metrics', scheme: 'HTTP' });
    let status = 0;
    for (let i = 0; i < 600 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${metricsPort}${probe.path}`).then((r) => r.status, () => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    const version = await https({ ca: first.caCert }, url, 'GET', '/');
    expect({ status: version.status, rc: version.body.overallRC }).toEqual({ status: 401, rc: 400 });
    expect((await https({ ca: first.caCert }, url, 'GET', '/guests')).status).toBe(401);
    // the client certificate passes the token check (what follows needs the API server this test has not)
    expect((await https({ ca: first.caCert, client: first.clients.machine }, url, 'GET', '/guests')).status).not.toBe(401);
    expect((await https({ ca: first.caCert, client: second.clients.machine }, url, 'GET', '/guests')).status).toBe(401);
  });

  it('takes the renewed certificate when the kubelet swaps the Secret\'s ..data, without a restart', async () => {
    writeSecretVolume(join(root, 'tls'), { 'tls.crt': second.serving.cert, 'tls.key': second.serving.key }, 2);
    const wanted = fingerprint(second.serving.cert);
    expect(await presentedUntil(url, [first.caCert, second.caCert], wanted)).toBe(wanted);
    expect(proc?.exitCode).toBeNull();
  });
});
