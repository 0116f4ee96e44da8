/**
 * The chart's controller pod (args, env and volumes as `helm template` renders them, chart-pods.ts)
 * against a real apiserver under the chart's RBAC, with a `simulated: true` ZHost, driven with
 * kubectl: apply of examples/, printer columns, wait for Ready, patches of the power state and of
 * the CPU count, Events, metrics, delete with the finalizer and with Orphan. The simulator runs
 * inside the operator; its state file (in the chart's --sim-state-dir volume) shows what is on the host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { SIM_STATE_DIR } from '../../chart/sources.js';
import { installChart, type ChartInstall } from './chart-pods.js';
import { applyFile, eventually, jsonpath, REPO, startOperatorEnv, type LoggedProcess, type OperatorEnv } from './helpers.js';

let o: OperatorEnv | undefined;
let install: ChartInstall | undefined;
let op: LoggedProcess | undefined;
let simDir = '';
let probes = '';
let metrics = '';

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}

/** Userids defined on the simulated host, as its state file says (written within about a second). */
function hostUserids(): string[] {
  const file = join(simDir, 'zvm-sim-default.json');
  if (!existsSync(file)) return [];
  const state = JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ userid: string }> };
  return state.entries.map((e) => e.userid);
}

const example = (name: string): string => join(REPO, 'examples', name);

beforeAll(async () => {
  o = await startOperatorEnv();
  // the chart's pod as rendered (chart-pods.ts), one replica without REST; a 200 ms requeue through the chart's extraArgs
  install = await installChart(o, { set: ['replicas=1,rest.enabled=false', 'controller.extraArgs={--poll-ms=200}'] });
  const pod = install.pod();
  const controller = pod.containers.controller;
  if (!controller) throw new Error('the chart rendered no controller container');
  op = controller.proc;
  simDir = pod.mounts[SIM_STATE_DIR] ?? '';
  probes = `http://127.0.0.1:${controller.ports.probes}`;
  metrics = `http://127.0.0.1:${controller.ports.metrics}`;
  await applyFile(o, example('zhost-simulated.yaml'));
}, 240_000);

afterAll(async () => {
  await install?.stop();
  await o?.env.stop();
}, 60_000);

describe('zvm-operator controller against a real apiserver', () => {
  it('brings the example guest to Ready, and kubectl get shows the printer columns', async () => {
    const { kubeconfig, namespace } = env();
    await applyFile(env(), example('zguest.yaml'));
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', 'zg/linux01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    const table = await kubectlOk(['get', 'zg', '-n', namespace], { kubeconfig });
    const [header, row] = table.trim().split('\n');
    expect(header).toMatch(/^NAME\s+USERID\s+HOST\s+CLASS\s+POWER\s+CPUS\s+MEMORY\s+RESTART\s+PHASE\s+READY\s+REASON\s+AGE$/);
    expect(row).toMatch(/^linux01\s+LINUX01\s+default\s+on\s+1\s+1G\s+False\s+\S+\s+True\s+GuestRunning\s+\S+$/);
    await eventually('LINUX01 on the simulated host', async () => hostUserids().includes('LINUX01'), [op!]);
  });

  it('stops the guest when powerState is patched to Off', async () => {
    const { kubeconfig, namespace } = env();
    await kubectlOk(['patch', '-n', namespace, 'zg/linux01', '--type=merge', '-p', '{"spec":{"powerState":"Off"}}'], { kubeconfig });
    await kubectlOk(['wait', '-n', namespace, '--for=jsonpath={.status.powerState}=off', 'zg/linux01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', 'zg/linux01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
  });

  it('resizes the guest when vcpus is patched', async () => {
    const { kubeconfig, namespace } = env();
    await kubectlOk(['patch', '-n', namespace, 'zg/linux01', '--type=merge', '-p', '{"spec":{"vcpus":3}}'], { kubeconfig });
    await kubectlOk(['wait', '-n', namespace, '--for=jsonpath={.status.vcpus}=3', 'zg/linux01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    const generation = await jsonpath(env(), 'zg/linux01', '{.metadata.generation}');
    await eventually('status to observe the new generation', async () => (await jsonpath(env(), 'zg/linux01', '{.status.observedGeneration}')) === generation, [op!]);
    const table = await kubectlOk(['get', 'zg', 'linux01', '-n', namespace, '--no-headers'], { kubeconfig });
    expect(table).toMatch(/^linux01\s+LINUX01\s+default\s+off\s+3\s+/);
  });

  it('records core/v1 Events on the guest', async () => {
    const { kubeconfig, namespace } = env();
    let events: Array<{ reason: string; source?: { component?: string }; involvedObject: { uid?: string } }> = [];
    const uid = await jsonpath(env(), 'zg/linux01', '{.metadata.uid}');
    await eventually('Events of linux01', async () => {
      const out = await kubectlOk(['get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=linux01', '-o', 'json'], { kubeconfig });
      events = (JSON.parse(out) as { items: typeof events }).items;
      return ['Created', 'Stopped', 'Resized'].every((r) => events.some((e) => e.reason === r));
    }, [op!]);
    expect(events.every((e) => e.source?.component === 'zvm-operator' && e.involvedObject.uid === uid)).toBe(true);
  });

  it('serves controller-runtime metrics and reports the host it holds', async () => {
    const text = await (await fetch(`${metrics}/metrics`)).text();
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="zguest",result="success"\} [1-9]/);
    expect(text).toMatch(/workqueue_adds_total\{name="zguest"\} [1-9]/);
    expect(text).toContain('controller_runtime_reconcile_time_seconds_bucket');
    // sharding (runtime/sharding): the one replica holds the one host's Lease
    expect(text).toMatch(/^zvm_shard_hosts_held 1$/m);
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
  });

  it('deletes the guest from the host before the resource goes (finalizer)', async () => {
    const { kubeconfig, namespace } = env();
    await kubectlOk(['delete', '-n', namespace, 'zg/linux01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    expect((await kubectl(['get', '-n', namespace, 'zg/linux01'], { kubeconfig })).stderr).toContain('NotFound');
    await eventually('LINUX01 gone from the simulated host', async () => !hostUserids().includes('LINUX01'), [op!]);
  });

  it('leaves the guest on the host when deletionPolicy is Orphan', async () => {
    const { kubeconfig, namespace } = env();
    await applyFile(env(), example('zguest-orphan.yaml'));
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', 'zg/keeper01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    await eventually('KEEPER01 on the simulated host', async () => hostUserids().includes('KEEPER01'), [op!]);
    await kubectlOk(['delete', '-n', namespace, 'zg/keeper01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    expect((await kubectl(['get', '-n', namespace, 'zg/keeper01'], { kubeconfig })).stderr).toContain('NotFound');
    // the state file is rewritten within about a second of any change: give it the chance to drop it
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(hostUserids()).toContain('KEEPER01');
  });

  it('stops gracefully on SIGTERM, releasing its host Lease', async () => {
    const { kubeconfig, namespace } = env();
    op!.child.kill('SIGTERM');
    expect(await op!.exited).toBe(0);
    const holder = await kubectlOk(['get', 'lease', '-n', namespace, 'zvm-operator-leader-host-default', '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig });
    expect(holder).toBe('');
  });
});
