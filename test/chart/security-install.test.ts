/**
 * The chart's least-privilege layout on a real kube-apiserver (test/kube/harness.ts):
 * rest.separateDeployment puts REST under its own ServiceAccount that cannot read Secrets, and the
 * zhostSecretPolicy ValidatingAdmissionPolicy refuses a ZHost naming a Secret from a user not allowed.
 */
import { ZvmError } from '../../src/errors.js';
import { startKubeTestEnv, type KubeTestEnv } from '../kube/harness.js';
import { kubectl, kubectlOk } from '../kube/kubectl.js';
import { renderChart } from './render.js';

const NS = 'zvm-sec';
const RELEASE = 'zvm-sec';
let env: KubeTestEnv | undefined;

function theEnv(): KubeTestEnv {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  return env;
}
const admin = (args: string[], input?: string) => kubectl(args, { kubeconfig: theEnv().adminKubeconfig, input });
const asJson = (objects: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
const zhost = (name: string, spec: object) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name }, spec });

beforeAll(async () => {
  env = await startKubeTestEnv();
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
  await kubectlOk(['apply', '-f', '-'], { kubeconfig: env.adminKubeconfig, input: asJson([ns]) });
  const objects = await renderChart({
    release: RELEASE, namespace: NS, includeCrds: true,
    set: ['rest.separateDeployment=true', 'zhostSecretPolicy.enabled=true', 'zhostSecretPolicy.allowedGroups={system:masters,zvm-host-admins}'],
  });
  const applied = await admin(['apply', '-f', '-'], asJson(objects));
  if (applied.code !== 0) throw new ZvmError('INTERNAL', `applying the chart failed: ${applied.stderr}`);
  await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], { kubeconfig: env.adminKubeconfig, timeoutMs: 70_000 });
  // someone who may write ZHosts (RBAC) but is not among the policy's allowed users or groups
  const writer = [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'zhost-writer' }, rules: [{ apiGroups: ['zvm.dev'], resources: ['zhosts'], verbs: ['get', 'create', 'update', 'patch'] }] },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'zhost-writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'zhost-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'zvm-host-admins' }],
    },
  ];
  await kubectlOk(['apply', '-f', '-'], { kubeconfig: env.adminKubeconfig, input: asJson(writer) });
}, 240_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

async function canI(args: string[], as: string): Promise<string> {
  const r = await kubectl(['auth', 'can-i', ...args, `--as=${as}`], { kubeconfig: theEnv().adminKubeconfig });
  return `${args.join(' ')}: ${r.stdout.trim() || r.stderr.trim()}`;
}

describe('REST in its own Deployment', () => {
  const restSa = `system:serviceaccount:${NS}:${RELEASE}-zvm-operator-rest`;
  const controllerSa = `system:serviceaccount:${NS}:${RELEASE}-zvm-operator`;

  it('runs under a ServiceAccount that cannot read any Secret', async () => {
    const refused = [['get', 'secrets', '-n', NS], ['list', 'secrets', '-n', NS], ['watch', 'secrets', '-n', NS], ['get', 'secrets', '-n', 'default'], ['get', `secrets/${RELEASE}-zvm-operator-rest-token`, '-n', NS]];
    expect(await Promise.all(refused.map((c) => canI(c, restSa)))).toEqual(refused.map((c) => `${c.join(' ')}: no`));
    const allowed = [
      ['create', 'zguests.zvm.dev', '-n', 'default'], ['list', 'zguests.zvm.dev', '-n', 'default'], ['patch', 'zguests.zvm.dev', '-n', 'default'], ['watch', 'zhosts.zvm.dev'],
      ['create', 'zguestactions.zvm.dev', '-n', 'default'], ['create', 'zimages.zvm.dev'], ['delete', 'zvolumes.zvm.dev', '-n', 'default'],
    ];
    expect(await Promise.all(allowed.map((c) => canI(c, restSa)))).toEqual(allowed.map((c) => `${c.join(' ')}: yes`));
    const notRest = [['update', 'zguests.zvm.dev', '--subresource=status', '-n', 'default'], ['create', 'zhosts.zvm.dev'], ['get', 'leases.coordination.k8s.io', '-n', NS]];
    expect(await Promise.all(notRest.map((c) => canI(c, restSa)))).toEqual(notRest.map((c) => `${c.join(' ')}: no`));
  }, 60_000);

  it('leaves Secrets (get by name, no list) to the controller, which no longer holds REST\'s write rights', async () => {
    expect(await canI(['get', 'secrets', '-n', NS], controllerSa)).toMatch(/: yes$/);
    expect(await canI(['list', 'secrets', '-n', NS], controllerSa)).toMatch(/: no$/);
    // REST's creations stay REST's; the controller creates guests only for pools (CONTROLLER_CREATED_KINDS)
    expect(await canI(['create', 'zimages.zvm.dev'], controllerSa)).toMatch(/: no$/);
    expect(await canI(['create', 'zguestactions.zvm.dev', '-n', 'default'], controllerSa)).toMatch(/: no$/);
    expect(await canI(['create', 'zguests.zvm.dev', '-n', 'default'], controllerSa)).toMatch(/: yes$/);
  }, 60_000);
});

describe('zhostSecretPolicy', () => {
  it('refuses a ZHost naming a Secret from a user not allowed, and admits the rest', async () => {
    const withSecret = zhost('lpar-mallory', { smapi: { host: '10.0.0.9', credentialsSecret: 'smapi-creds' } });
    // the policy takes effect once the apiserver has loaded it: poll for the refusal, bounded
    let refused = await admin(['create', '-f', '-', '--as=mallory'], asJson([withSecret]));
    for (let i = 0; i < 60 && refused.code === 0; i++) {
      await admin(['delete', 'zhost', 'lpar-mallory', '--ignore-not-found']);
      await new Promise((r) => setTimeout(r, 500));
      refused = await admin(['create', '-f', '-', '--as=mallory'], asJson([withSecret]));
    }
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/ValidatingAdmissionPolicy .*zhost-secrets.* denied request: user mallory may not make a ZHost name a Secret/);
    expect((await admin(['get', 'zhost', 'lpar-mallory', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');

    const simulated = await admin(['create', '-f', '-', '--as=mallory'], asJson([zhost('sim-mallory', { simulated: true })]));
    expect({ code: simulated.code, stderr: simulated.stderr }).toEqual({ code: 0, stderr: '' });
    const allowed = await admin(['create', '-f', '-', '--as=alice', '--as-group=zvm-host-admins'], asJson([zhost('lpar-alice', { smapi: { host: '10.0.0.9', credentialsSecret: 'smapi-creds' } })]));
    expect({ code: allowed.code, stderr: allowed.stderr }).toEqual({ code: 0, stderr: '' });
  }, 90_000);

  it('lets others edit a ZHost but not redirect its credentials to another host', async () => {
    const edit = await admin(['patch', 'zhost', 'lpar-alice', '--type=merge', '-p', '{"spec":{"resyncSeconds":600}}', '--as=mallory']);
    expect({ code: edit.code, stderr: edit.stderr }).toEqual({ code: 0, stderr: '' });
    const redirect = await admin(['patch', 'zhost', 'lpar-alice', '--type=merge', '-p', '{"spec":{"smapi":{"host":"evil.example.com"}}}', '--as=mallory']);
    expect(redirect.code).not.toBe(0);
    expect(redirect.stderr).toMatch(/may not make a ZHost name a Secret/);
    expect((await kubectlOk(['get', 'zhost', 'lpar-alice', '-o', 'jsonpath={.spec.smapi.host}'], { kubeconfig: theEnv().adminKubeconfig }))).toBe('10.0.0.9');
  }, 60_000);
});
