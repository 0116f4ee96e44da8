/**
 * The chart's exact output runs: for each tested set of values, `helm template` is applied to a real
 * apiserver and every rendered Deployment's pods start with the rendered args, env and mounted files
 * (test/e2e/operator/chart-pods.ts), under the chart's own ServiceAccounts and RBAC. A guest goes
 * Ready and every REST pod answers a live read of it (`GET /guests/{id}/power_state`), which needs
 * the REST container to read the host the controller drives: a simulated host's state files
 * (--sim-state-dir on both containers, on a volume both mount) or a SMAPI host's credentials.
 */
import { kubectl, kubectlOk } from '../kube/kubectl.js';
import { installChart, type ChartInstall, type RunningPod } from '../e2e/operator/chart-pods.js';
import { applyObjects, startOperatorEnv, stopProcess, type OperatorEnv } from '../e2e/operator/helpers.js';
import { startSharedHost, type SharedHost } from '../e2e/operator/shared-host.js';

const RELEASE = 'zvm-operator';
const SIMULATED_HOST = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } };
const guest = (name: string, userid: string) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name }, spec: { userid, vcpus: 1, memory: '512M', powerState: 'On' } });

interface Setup {
  o: OperatorEnv;
  install: ChartInstall;
  host?: SharedHost;
}

/** One apiserver per set of values: the chart installed, its pods running, the ZHost applied. */
function chartWith(set: string[], host: 'simulated' | 'smapi'): () => Setup {
  let s: Partial<Setup> = {};
  beforeAll(async () => {
    s.o = await startOperatorEnv();
    s.install = await installChart(s.o, { release: RELEASE, set });
    if (host === 'smapi') s.host = await startSharedHost(s.o);
    else await applyObjects(s.o, [SIMULATED_HOST]);
  }, 400_000);
  afterAll(async () => {
    await s.install?.stop();
    await s.host?.close();
    if (s.host) await stopProcess(s.host.sim);
    await s.o?.env.stop();
    s = {};
  }, 120_000);
  return () => s as Setup;
}

async function waitReady(o: OperatorEnv, name: string): Promise<void> {
  const r = await kubectl(['wait', '-n', o.namespace, '--for=condition=Ready', `zg/${name}`, '--timeout=120s'], { kubeconfig: o.kubeconfig, timeoutMs: 130_000 });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
}

/** GET path on one REST pod with a token issued for the chart's admin token (the Secret the pod mounts). */
async function restGet(o: OperatorEnv, pod: RunningPod, path: string): Promise<{ status: number; body: { output?: unknown } }> {
  const base = `http://127.0.0.1:${pod.containers.rest?.ports.rest}`;
  const admin = Buffer.from(await kubectlOk(['get', 'secret', `${RELEASE}-rest-token`, '-n', o.namespace, '-o', 'jsonpath={.data.token}'], { kubeconfig: o.kubeconfig }), 'base64').toString();
  const issued = await fetch(`${base}/token`, { method: 'POST', headers: { 'X-Admin-Token': admin } });
  expect(issued.status).toBe(200);
  const r = await fetch(`${base}${path}`, { headers: { 'X-Auth-Token': issued.headers.get('x-auth-token') ?? '' } });
  return { status: r.status, body: (await r.json()) as { output?: unknown } };
}

const restPods = (install: ChartInstall): RunningPod[] => Object.values(install.pods).flat().filter((p) => p.containers.rest);
const argsOf = (install: ChartInstall, container: string): string[][] => Object.values(install.pods).flat().flatMap((p) => (p.containers[container] ? [p.containers[container].args] : []));

describe('defaults (2 replicas, REST sidecar) with a SMAPI host', () => {
  const s = chartWith([], 'smapi');

  it('runs two pods that share the host on Leases; each pod\'s REST reads the guest live', async () => {
    const { o, install } = s();
    expect(install.pods[RELEASE]).toHaveLength(2);
    expect(argsOf(install, 'controller').every((a) => a.some((x) => x.startsWith('--leader-election-id=')))).toBe(true);
    await applyObjects(o, [guest('pod-guest', 'PODG1')]);
    await waitReady(o, 'pod-guest');
    for (const pod of restPods(install)) expect({ pod: pod.name, ...(await restGet(o, pod, '/guests/PODG1/power_state')) }).toMatchObject({ pod: pod.name, status: 200, body: { output: 'on' } });
    const holder = await kubectlOk(['get', 'zhost', 'default', '-o', 'jsonpath={.status.heldBy}'], { kubeconfig: o.kubeconfig });
    expect(install.pods[RELEASE]?.map((p) => p.name).some((name) => holder.startsWith(name))).toBe(true);
  }, 300_000);
});

describe('rest.separateDeployment=true, replicas=1, a shared imageVolume, with a simulated host', () => {
  const s = chartWith(['rest.separateDeployment=true,replicas=1', 'imageVolume.persistentVolumeClaim.claimName=zvm-shared'], 'simulated');

  it('runs REST in its own pods, under its own ServiceAccount, reading the host the controller drives', async () => {
    const { o, install } = s();
    expect(Object.keys(install.pods).sort()).toEqual([RELEASE, `${RELEASE}-rest`]);
    expect(install.pods[`${RELEASE}-rest`]).toHaveLength(2);
    await applyObjects(o, [guest('split-guest', 'SPLITG1')]);
    await waitReady(o, 'split-guest');
    for (const pod of restPods(install)) expect({ pod: pod.name, ...(await restGet(o, pod, '/guests/SPLITG1/power_state')) }).toMatchObject({ pod: pod.name, status: 200, body: { output: 'on' } });
  }, 300_000);
});

describe('replicas=1 without leader election, with a simulated host', () => {
  const s = chartWith(['replicas=1,controller.leaderElection.enabled=false'], 'simulated');

  it('holds the host without a Lease; REST follows the guest\'s power state as the controller changes it', async () => {
    const { o, install } = s();
    const [pod] = install.pods[RELEASE] ?? [];
    expect(pod?.containers.controller?.args).toContain('--no-leader-elect');
    await applyObjects(o, [guest('single-guest', 'SINGLE1')]);
    await waitReady(o, 'single-guest');
    expect(await restGet(o, pod as RunningPod, '/guests/SINGLE1/power_state')).toMatchObject({ status: 200, body: { output: 'on' } });

    await kubectlOk(['patch', '-n', o.namespace, 'zg/single-guest', '--type=merge', '-p', '{"spec":{"powerState":"Off"}}'], { kubeconfig: o.kubeconfig });
    await kubectlOk(['wait', '-n', o.namespace, '--for=jsonpath={.status.powerState}=off', 'zg/single-guest', '--timeout=90s'], { kubeconfig: o.kubeconfig, timeoutMs: 100_000 });
    expect(await restGet(o, pod as RunningPod, '/guests/SINGLE1/power_state')).toMatchObject({ status: 200, body: { output: 'off' } });
    const leases = await kubectlOk(['get', 'leases', '-n', o.namespace, '-o', 'name'], { kubeconfig: o.kubeconfig });
    expect(leases.trim()).toBe('');
  }, 300_000);
});
