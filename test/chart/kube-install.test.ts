/**
 * The install on a real kube-apiserver (test/kube/harness.ts): `kubectl apply -k deploy/` and the
 * rendered chart are accepted without warnings under the restricted Pod Security Standard, the
 * ServiceAccount has exactly the permissions the operator needs (kubectl auth can-i), and a pod of
 * the Deployment, exactly as rendered, runs the controller and the REST sidecar under that
 * ServiceAccount's token until a guest is Ready.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ZvmError } from '../../src/errors.js';
import { startKubeTestEnv, type KubeTestEnv } from '../kube/harness.js';
import { kubectl, kubectlOk } from '../kube/kubectl.js';
import { startPod, type RunningPod } from '../e2e/operator/chart-pods.js';
import { find, renderChart, renderDeploy } from './render.js';
import { CONTROLLER_CREATED_KINDS, CONTROLLER_DELETED_KINDS, DEPLOY_DIR, KINDS, REST_CREATED_KINDS, REST_WRITTEN_KINDS, plurals } from './sources.js';
import { podSpec } from './workload.js';

const NS = 'zvm-system';
const SA = `system:serviceaccount:${NS}:zvm-operator`;
let env: KubeTestEnv | undefined;

function theEnv(): KubeTestEnv {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  return env;
}

const admin = (args: string[], input?: string) => kubectl(args, { kubeconfig: theEnv().adminKubeconfig, input });
const asJson = (objects: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });

beforeAll(async () => {
  env = await startKubeTestEnv();
  const applied = await admin(['apply', '-k', DEPLOY_DIR]);
  if (applied.code !== 0) throw new ZvmError('INTERNAL', `kubectl apply -k deploy/ failed: ${applied.stderr}`);
  await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], { kubeconfig: env.adminKubeconfig, timeoutMs: 70_000 });
}, 240_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

describe('plain manifests on a real apiserver', () => {
  it('apply -k deploy/ creates every object, with no warning, and a second apply changes nothing', async () => {
    const again = await admin(['apply', '-k', DEPLOY_DIR]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/warning/i);
    // kubectl diff, not apply's words: client-side apply always sends a PodDisruptionBudget's selector
    // (patch strategy replace) and says "configured" although the object stays at generation 1
    const diff = await admin(['diff', '-k', DEPLOY_DIR]);
    expect({ code: diff.code, stdout: diff.stdout, stderr: diff.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
    for (const m of await renderDeploy()) {
      const ns = m.metadata.namespace ? ['-n', m.metadata.namespace] : [];
      const group = m.apiVersion.includes('/') ? `.${m.apiVersion.split('/')[0]}` : '';
      const got = await admin(['get', `${m.kind}${group}`, m.metadata.name, ...ns, '-o', 'name']);
      expect({ object: `${m.kind}/${m.metadata.name}`, code: got.code }).toEqual({ object: `${m.kind}/${m.metadata.name}`, code: 0 });
    }
  }, 120_000);

  it('accepts the ZHost examples against the CRD schema', async () => {
    for (const file of ['zhost-simulated.yaml', 'zhost-smapi.yaml']) {
      const r = await admin(['apply', '--dry-run=server', '-f', join(DEPLOY_DIR, 'examples', file)]);
      expect({ file, code: r.code, stderr: r.stderr }).toEqual({ file, code: 0, stderr: '' });
    }
  }, 60_000);

  it('enforces the restricted Pod Security Standard in the namespace, and the operator pod passes it', async () => {
    const deployment = find(await renderDeploy(), 'Deployment');
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'template-check', namespace: NS }, spec: podSpec(deployment) };
    const admitted = await admin(['apply', '-f', '-'], asJson([pod]));
    expect({ code: admitted.code, stderr: admitted.stderr }).toEqual({ code: 0, stderr: '' });

    // The check is live: the same pod without its security contexts is refused.
    const spec = podSpec(deployment);
    const loose = { ...pod, metadata: { ...pod.metadata, name: 'loose' }, spec: { ...spec, securityContext: {}, containers: spec.containers.map((c) => ({ ...c, securityContext: {} })) } };
    const refused = await admin(['apply', '-f', '-'], asJson([loose]));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/violates PodSecurity "restricted:latest"/);
    const looseSpec = { ...(deployment.spec as object), selector: { matchLabels: { app: 'loose' } }, template: { metadata: { labels: { app: 'loose' } }, spec: loose.spec } };
    const looseDeployment = { ...deployment, metadata: { ...deployment.metadata, name: 'loose' }, spec: looseSpec };
    const warned = await admin(['apply', '--dry-run=server', '-f', '-'], asJson([looseDeployment]));
    expect(warned.stderr).toMatch(/Warning: would violate PodSecurity "restricted:latest"/);
  }, 60_000);
});

async function canI(args: string[], as = SA): Promise<string> {
  const r = await kubectl(['auth', 'can-i', ...args, `--as=${as}`], { kubeconfig: theEnv().adminKubeconfig });
  return `${args.join(' ')}: ${r.stdout.trim() || r.stderr.trim()}`;
}

describe('RBAC of the operator ServiceAccount', () => {
  it('allows everything the controller and the REST sidecar do', async () => {
    const checks: string[][] = [];
    for (const p of plurals()) {
      const scope = KINDS[Object.keys(KINDS).find((k) => KINDS[k]?.plural === p) ?? '']?.scope === 'Cluster' ? [] : ['-n', 'default'];
      for (const verb of ['get', 'list', 'watch', 'update', 'patch']) checks.push([verb, `${p}.zvm.dev`, ...scope]);
      for (const verb of ['get', 'update', 'patch']) checks.push([verb, `${p}.zvm.dev`, '--subresource=status', ...scope]);
      checks.push(['update', `${p}.zvm.dev`, '--subresource=finalizers', ...scope]);
    }
    for (const p of plurals(REST_WRITTEN_KINDS)) checks.push(['create', `${p}.zvm.dev`, '-n', 'default'], ['delete', `${p}.zvm.dev`, '-n', 'default']);
    for (const p of plurals(REST_CREATED_KINDS)) checks.push(['create', `${p}.zvm.dev`, '-n', 'default']);
    for (const p of plurals(CONTROLLER_DELETED_KINDS)) checks.push(['delete', `${p}.zvm.dev`, '-n', 'default']);
    for (const p of plurals(CONTROLLER_CREATED_KINDS)) checks.push(['create', `${p}.zvm.dev`, '-n', 'default']);
    for (const ns of ['default', NS]) checks.push(['create', 'events', '-n', ns], ['patch', 'events', '-n', ns]);
    for (const verb of ['get', 'list', 'create', 'update', 'delete']) checks.push([verb, 'leases.coordination.k8s.io', '-n', NS]);
    checks.push(['get', 'secrets', '-n', NS]);
    const answers = await Promise.all(checks.map((c) => canI(c)));
    expect(answers).toEqual(checks.map((c) => `${c.join(' ')}: yes`));
  }, 120_000);

  it('refuses what the operator never does', async () => {
    const checks = [
      ['get', 'secrets', '-n', 'default'], ['list', 'secrets', '-n', NS], ['watch', 'secrets', '-n', NS], ['create', 'secrets', '-n', NS],
      ['get', 'leases.coordination.k8s.io', '-n', 'default'], ['watch', 'leases.coordination.k8s.io', '-n', NS],
      ['list', 'pods', '-n', NS], ['create', 'pods', '-n', 'default'], ['get', 'configmaps', '-n', NS], ['create', 'deployments.apps', '-n', NS],
      ['deletecollection', 'zguests.zvm.dev', '-n', 'default'], ['create', 'zhosts.zvm.dev'], ['delete', 'zhosts.zvm.dev'],
      ['delete', 'events', '-n', 'default'], ['create', 'customresourcedefinitions.apiextensions.k8s.io'], ['list', 'namespaces'],
      ['list', 'nodes'], ['escalate', 'clusterroles.rbac.authorization.k8s.io'], ['*', '*'],
    ];
    const answers = await Promise.all(checks.map((c) => canI(c)));
    expect(answers).toEqual(checks.map((c) => `${c.join(' ')}: no`));
  }, 120_000);
});

describe('the chart on a real apiserver', () => {
  const release = 'zvm-chart';

  it('installs into its own restricted namespace without warnings, and its variants validate', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: release, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } } };
    await kubectlOk(['apply', '-f', '-'], { kubeconfig: theEnv().adminKubeconfig, input: asJson([ns]) });
    const objects = await renderChart({ release, namespace: release });
    const applied = await admin(['apply', '-f', '-'], asJson(objects));
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    // the NetworkPolicy (on by default) as the apiserver stored it: both directions, the REST port among the ingress ports
    const policy = await admin(['get', 'networkpolicy', `${release}-zvm-operator`, '-n', release, '-o', 'jsonpath={.spec.policyTypes} {.spec.ingress[*].ports[*].port}']);
    expect({ code: policy.code, stdout: policy.stdout }).toEqual({ code: 0, stdout: '["Ingress","Egress"] 8888 8080 8082' });
    for (const set of [['rest.enabled=false'], ['rest.separateDeployment=true', 'networkPolicy.ingress.rest[0].namespaceSelector.matchLabels.team=web'], ['rest.adminToken.existingSecret=mine'], ['controller.leaderElection.enabled=false,replicas=1'], ['rest.tls.secretName=rest-tls,rest.tls.clientCaSecret=machines']]) {
      const variant = await admin(['apply', '--dry-run=server', '-f', '-'], asJson(await renderChart({ release, namespace: release, set })));
      expect({ set, code: variant.code, stderr: variant.stderr }).toEqual({ set, code: 0, stderr: '' });
    }
    const sa = `system:serviceaccount:${release}:${release}-zvm-operator`;
    expect(await canI(['get', 'secrets', '-n', release], sa)).toMatch(/: yes$/);
    expect(await canI(['get', 'secrets', '-n', NS], sa)).toMatch(/: no$/);
    expect(await canI(['update', 'zguests.zvm.dev', '--subresource=status', '-n', 'default'], sa)).toMatch(/: yes$/);
  }, 120_000);
});

describe('the Deployment\'s containers under the ServiceAccount', () => {
  const procs: RunningPod[] = [];

  afterAll(async () => {
    for (const p of procs) await p.stop();
  }, 60_000);

  it('reconcile a guest to Ready and serve REST, with only the RBAC of deploy/', async () => {
    const o = { env: theEnv(), kubeconfig: theEnv().adminKubeconfig, namespace: NS };
    await kubectlOk(['create', 'secret', 'generic', 'zvm-operator-rest-token', '-n', NS, '--from-literal=token=admin-secret-token'], { kubeconfig: o.kubeconfig });
    // one pod of deploy/'s Deployment, exactly as rendered (test/e2e/operator/chart-pods.ts): RBAC needs no second replica
    const pod = await startPod(o, find(await renderDeploy(), 'Deployment'), { index: 0 });
    procs.push(pod);
    const ports = { 8080: pod.containers.controller?.ports.metrics, 8888: pod.containers.rest?.ports.rest };
    const host = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } };
    const guest = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'sa-guest', namespace: 'default' }, spec: { userid: 'SAGUEST', vcpus: 1, memory: '1G', powerState: 'On' } };
    await kubectlOk(['apply', '-f', '-'], { kubeconfig: theEnv().adminKubeconfig, input: asJson([host, guest]) });
    const ready = await kubectl(['wait', '--for=condition=Ready', 'zguest/sa-guest', '-n', 'default', '--timeout=90s'], { kubeconfig: theEnv().adminKubeconfig, timeoutMs: 100_000 });
    expect({ code: ready.code, stderr: ready.stderr }).toEqual({ code: 0, stderr: '' });

    const token = await fetch(`http://127.0.0.1:${ports[8888]}/token`, { method: 'POST', headers: { 'X-Admin-Token': 'admin-secret-token' } });
    expect(token.status).toBe(200);
    const auth = { 'X-Auth-Token': token.headers.get('x-auth-token') ?? '' };
    const created = await fetch(`http://127.0.0.1:${ports[8888]}/guests`, {
      method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ guest: { userid: 'RESTG1', vcpus: 1, memory: 512, disk_list: [] } }),
    });
    expect({ status: created.status, body: await created.text() }).toMatchObject({ status: 200 });
    const listed = await (await fetch(`http://127.0.0.1:${ports[8888]}/guests`, { headers: auth })).text();
    expect(listed).toContain('RESTG1');
    // a live read: REST answers from the simulated host's state the controller container wrote
    const power = await fetch(`http://127.0.0.1:${ports[8888]}/guests/SAGUEST/power_state`, { headers: auth });
    expect({ status: power.status, body: await power.json() }).toMatchObject({ status: 200, body: { output: 'on' } });
    const metrics = await (await fetch(`http://127.0.0.1:${ports[8080]}/metrics`)).text();
    expect(metrics).toMatch(/^controller_runtime_reconcile_total\{/m);
    const log = await readFile(pod.containers.controller?.proc.logPath ?? '', 'utf8');
    expect(log).not.toMatch(/forbidden/i);
  }, 240_000);
});
