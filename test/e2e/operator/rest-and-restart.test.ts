/**
 * Cluster mode end to end: the chart's pod as rendered (controller and REST sidecar, chart-pods.ts)
 * against a real apiserver under the chart's RBAC, sharing a `zvm-operator sim` host. REST writes ZGuests and waits for the controller's
 * status, live reads reach the host, the admin token comes from a Secret; after an apiserver restart
 * both processes' watches recover. REST serves guests of every namespace but does not change fields
 * kubectl manages unless installed with rest.takeOver=true (issue 13 item 5).
 */
import { perObjectRequests, requestDelta } from '../../kube/apiserver-requests.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { installChart } from './chart-pods.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, jsonpath } from './helpers.js';
import { aZGuest } from './shared-host.js';

const ADMIN_TOKEN = 'e2e-admin-token';
// the chart's pod as rendered (chart-pods.ts): controller and REST sidecar
const suite = chartPodsForSuite({
  prepare: (o) => applyObjects(o, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rest-admin' }, stringData: { token: ADMIN_TOKEN } }]),
  set: [
    'replicas=1,rest.adminToken.existingSecret=rest-admin',
    // an apiserver restart takes longer than the default 10 s renew deadline; a leader that cannot
    // renew exits for Kubernetes to restart it (unit-tested), here the watches themselves are tested
    'controller.leaderElection.leaseDuration=90s,controller.leaderElection.renewDeadline=60s',
    'controller.extraArgs={--poll-ms=200}', 'rest.operationTimeout=30s',
  ],
});
const { env } = suite;
let restUrl = '';
let metricsUrl = '';

interface Envelope {
  overallRC: number;
  output: unknown;
  errmsg: string;
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Envelope; headers: Headers }> {
  const res = await fetch(`${restUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Envelope, headers: res.headers };
}

/** An auth token from POST /token with the admin token of the Secret. */
async function token(): Promise<Record<string, string>> {
  const res = await call('POST', '/token', undefined, { 'X-Admin-Token': ADMIN_TOKEN });
  expect(res.status).toBe(200);
  const issued = res.headers.get('x-auth-token');
  expect(issued).toBeTruthy();
  return { 'X-Auth-Token': issued ?? '' };
}

beforeAll(() => {
  const pod = suite.install().pod();
  metricsUrl = `http://127.0.0.1:${pod.containers.controller?.ports.metrics}/metrics`;
  restUrl = `http://127.0.0.1:${pod.containers.rest?.ports.rest}`;
});

describe('cluster mode: REST sidecar and controller processes', () => {
  it('refuses requests without a token and issues one for the admin token of the Secret', async () => {
    expect((await call('GET', '/guests')).status).toBe(401);
    expect((await call('POST', '/token', undefined, { 'X-Admin-Token': 'wrong' })).status).toBe(401);
    await token();
  });

  it('creates a guest with POST /guests through a ZGuest the controller reconciles', async () => {
    const auth = await token();
    const created = await call('POST', '/guests', { guest: { userid: 'rest01', vcpus: 1, memory: 512 } }, auth);
    expect(created.status).toBe(200);
    expect(created.body.overallRC).toBe(0);
    const listed = await call('GET', '/guests', undefined, auth);
    expect(listed.body.output).toContain('REST01');
    const names = await kubectlOk(['get', 'zg', '-n', env().namespace, '-o', 'jsonpath={.items[*].spec.userid}'], { kubeconfig: env().kubeconfig });
    expect(names.split(' ').map((u) => u.toUpperCase())).toContain('REST01');
    expect(await suite.host().hypervisor.describeGuest('REST01')).toBeDefined();
  });

  it('counts the SMAPI calls of the controller in its metrics', async () => {
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toMatch(/zvm_smapi_calls_total\{host="[^"]+",function="Image_Create_DM",outcome="success"\} [1-9]/);
    expect(text).toContain('zvm_smapi_call_duration_seconds_bucket');
  });

  it('answers live reads from the host', async () => {
    const auth = await token();
    const power = await call('GET', '/guests/rest01/power_state_real', undefined, auth);
    expect(power.status).toBe(200);
    expect(power.body.output).toBe('off');
    const started = await call('POST', '/guests/rest01/action', { action: 'start' }, auth);
    expect(started.status).toBe(200);
    expect((await call('GET', '/guests/rest01/power_state_real', undefined, auth)).body.output).toBe('on');
  });

  it('serves a guest kubectl applied in another namespace, but leaves the fields kubectl manages alone', async () => {
    const { kubeconfig } = env();
    await kubectlOk(['create', 'namespace', 'team-a'], { kubeconfig });
    await applyObjects(env(), [aZGuest('team-guest', 'TEAM01', 'Running')], 'team-a');
    await kubectlOk(['wait', '-n', 'team-a', '--for=condition=Ready', 'zg/team-guest', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    const auth = await token();
    expect((await call('GET', '/guests', undefined, auth)).body.output).toContain('TEAM01');
    expect((await call('GET', '/guests/team01/power_state', undefined, auth)).body.output).toBe('on');

    const refused = await call('POST', '/guests/team01/action', { action: 'stop' }, auth);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ overallRC: 409, rc: 409 });
    expect(refused.body.errmsg).toContain('"kubectl-client-side-apply" (spec.powerState)');
    expect(await jsonpath(env(), 'zg/team-guest', '{.spec.powerState}', 'team-a')).toBe('Running');
    expect((await call('DELETE', '/guests/team01', undefined, auth)).status).toBe(409);
    expect((await suite.host().hypervisor.describeGuest('TEAM01'))?.power).toBe('on');

    // what REST created is REST's own, selectable by the well-known label
    const restOwned = await kubectlOk(['get', 'zg', '-A', '-l', 'app.kubernetes.io/managed-by=zvm-rest', '-o', 'jsonpath={.items[*].spec.userid}'], { kubeconfig });
    expect(restOwned.split(' ')).toContain('REST01');
    expect(restOwned).not.toContain('TEAM01');
  }, 120_000);

  it('finds guests by userid in its own ZGuest index: no look-up lists guests from the apiserver', async () => {
    const { kubeconfig } = env();
    const auth = await token();
    const reads = new Set(['GET', 'LIST']);
    const LOOKUPS = 5;
    const before = await perObjectRequests(kubeconfig, reads);
    for (let i = 0; i < LOOKUPS; i++) {
      // TEAM01 has kubectl's name, not REST's: found by userid (before the index: one LIST of every guest each)
      expect((await call('GET', '/guests/team01/power_state', undefined, auth)).body.output).toBe('on');
      expect((await call('GET', '/guests/rest01/power_state', undefined, auth)).status).toBe(200);
    }
    expect((await call('GET', '/guests/nosuch01/power_state', undefined, auth)).status).toBe(404);
    const delta = requestDelta(before, await perObjectRequests(kubeconfig, reads));
    expect(delta['LIST zguests'] ?? 0).toBe(0);
    // at most the one direct read by REST's own name per look-up
    expect(delta['GET zguests'] ?? 0).toBeLessThanOrEqual(2 * LOOKUPS + 1);
  });

  it('takes the fields over with rest.takeOver=true', async () => {
    // a second release's REST pod as rendered (its own Deployment, so that only REST starts)
    const takeOver = await installChart(env(), {
      release: 'take-over', start: (d) => d.endsWith('-rest'),
      set: ['rest.separateDeployment=true,rest.replicas=1,rest.takeOver=true,rest.adminToken.existingSecret=rest-admin'],
    });
    try {
      const url = `http://127.0.0.1:${takeOver.pod(0, 'take-over-zvm-operator-rest').containers.rest?.ports.rest}`;
      const issued = await fetch(`${url}/token`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
      const res = await fetch(`${url}/guests/team01/action`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'X-Auth-Token': issued.headers.get('x-auth-token') ?? '' }, body: JSON.stringify({ action: 'stop' }),
      });
      expect(res.status).toBe(200);
      expect(await jsonpath(env(), 'zg/team-guest', '{.spec.powerState}', 'team-a')).toBe('Stopped');
      expect((await suite.host().hypervisor.describeGuest('TEAM01'))?.power).toBe('off');
      const owners = JSON.parse(await jsonpath(env(), 'zg/team-guest', '{.metadata.managedFields}', 'team-a')) as { manager: string; fieldsV1?: { 'f:spec'?: Record<string, unknown> } }[];
      expect(owners.find((m) => m.fieldsV1?.['f:spec']?.['f:powerState'])?.manager).toBe('zvm-rest');
    } finally {
      await takeOver.stop();
    }
  }, 180_000);

  it('recovers both watches after an apiserver restart', async () => {
    await env().env.restartApiserver();
    await applyObjects(env(), [aZGuest('after-restart', 'AFTER01')]);
    await kubectlOk(['wait', '-n', env().namespace, '--for=condition=Ready', 'zg/after-restart', '--timeout=60s'], { kubeconfig: env().kubeconfig, timeoutMs: 70_000 });
    expect((await suite.host().hypervisor.describeGuest('AFTER01'))?.power).toBe('on');
    // the sidecar's writes wait on its own watch: a POST that completes shows that watch is back too
    const created = await call('POST', '/guests', { guest: { userid: 'rest02', vcpus: 1, memory: 512 } }, await token());
    expect(created.status).toBe(200);
    expect(await suite.host().hypervisor.describeGuest('REST02')).toBeDefined();
  }, 120_000);
});
