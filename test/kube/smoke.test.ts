/**
 * Smoke test of the Kubernetes test harness: a real etcd + kube-apiserver, driven with kubectl.
 * Needs the toolchain (test/kube/toolchain.sh); without it every test fails saying so.
 */
import { ZvmError } from '../../src/errors.js';
import { startKubeTestEnv } from './harness.js';
import type { KubeTestEnv } from './harness.js';
import { kubectl, kubectlOk } from './kubectl.js';

const GROUP = 'smoke.zvm.test';
const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${GROUP}
spec:
  group: ${GROUP}
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer, minimum: 1 }
`;
const WIDGET = `
apiVersion: ${GROUP}/v1
kind: Widget
metadata: { name: first, namespace: default }
spec: { size: 3 }
`;

let env: KubeTestEnv | undefined;

function theEnv(): KubeTestEnv {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  return env;
}

beforeAll(async () => {
  env = await startKubeTestEnv();
}, 180_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

describe('kube test env', () => {
  test('serves namespaces to kubectl, including default', async () => {
    const out = await kubectlOk(['get', 'namespaces', '-o', 'name'], { kubeconfig: theEnv().kubeconfigPath });
    expect(out.split('\n')).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system']));
  }, 60_000);

  test('stores a custom object of a CRD applied by the test and reads it back', async () => {
    const kubeconfig = theEnv().adminKubeconfig;
    await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: CRD });
    await kubectlOk(['wait', '--for=condition=Established', `crd/widgets.${GROUP}`, '--timeout=60s'], { kubeconfig });
    await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: WIDGET });
    const widget = JSON.parse(await kubectlOk(['get', `widgets.${GROUP}`, 'first', '-n', 'default', '-o', 'json'], { kubeconfig }));
    expect(widget.spec).toEqual({ size: 3 });
    expect(widget.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  }, 120_000);

  test('rejects a custom object that violates the CRD schema', async () => {
    const kubeconfig = theEnv().adminKubeconfig;
    await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: CRD });
    await kubectlOk(['wait', '--for=condition=Established', `crd/widgets.${GROUP}`, '--timeout=60s'], { kubeconfig });
    const bad = await kubectl(['apply', '-f', '-'], { kubeconfig, input: WIDGET.replace('first', 'bad').replace('size: 3', 'size: 0') });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/spec\.size/);
  }, 120_000);

  test('lets RBAC deny the operator user what no Role grants, and allow what one does', async () => {
    const e = theEnv();
    const ns = ['-n', 'default'];
    await kubectlOk(['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps', ...ns], { kubeconfig: e.adminKubeconfig });
    await kubectlOk(['create', 'rolebinding', 'cm-reader', '--role=cm-reader', `--group=${e.operatorIdentity.groups[0]}`, ...ns], { kubeconfig: e.adminKubeconfig });

    const secrets = await kubectl(['get', 'secrets', ...ns], { kubeconfig: e.operatorKubeconfig });
    expect(secrets.code).not.toBe(0);
    expect(secrets.stderr).toContain(`User "${e.operatorIdentity.user}" cannot list resource "secrets"`);
    await kubectlOk(['create', 'configmap', 'visible', '--from-literal=k=v', ...ns], { kubeconfig: e.adminKubeconfig });
    const configmap = await kubectl(['get', 'configmap', 'visible', '-o', 'jsonpath={.data.k}', ...ns], { kubeconfig: e.operatorKubeconfig });
    expect(configmap).toEqual({ code: 0, stdout: 'v', stderr: '' });
    // The combined kubeconfig reaches the same identity through its `operator` context.
    const canI = await kubectl(['--context', 'operator', 'auth', 'can-i', 'delete', 'configmaps', ...ns], { kubeconfig: e.kubeconfigPath });
    expect(canI.stdout.trim()).toBe('no');
  }, 120_000);

  test('mints service-account tokens through the TokenRequest API', async () => {
    const kubeconfig = theEnv().adminKubeconfig;
    await kubectlOk(['create', 'serviceaccount', 'smoke', '-n', 'default'], { kubeconfig });
    const token = (await kubectlOk(['create', 'token', 'smoke', '-n', 'default'], { kubeconfig })).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    expect(claims.sub).toBe('system:serviceaccount:default:smoke');
  }, 120_000);

  test('comes back after restartApiserver with the stored data intact', async () => {
    const e = theEnv();
    const kubeconfig = e.adminKubeconfig;
    await kubectlOk(['create', 'configmap', 'survivor', '--from-literal=k=v', '-n', 'default'], { kubeconfig });
    const pidBefore = e.apiserverPid();
    await e.restartApiserver();
    expect(e.apiserverPid()).toEqual(expect.any(Number));
    expect(e.apiserverPid()).not.toBe(pidBefore);
    const cm = JSON.parse(await kubectlOk(['get', 'configmap', 'survivor', '-n', 'default', '-o', 'json'], { kubeconfig }));
    expect(cm.data).toEqual({ k: 'v' });
  }, 180_000);
});
