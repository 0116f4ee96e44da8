/**
 * Failover between the chart's controller pods as rendered (chart-pods.ts) sharing one host (a `zvm-operator sim` process): only the
 * holder of the host's Lease reconciles; after the leader is SIGKILLed the standby takes the Lease once it
 * expires and finishes the work created meanwhile; on SIGTERM a leader hands the Lease over at once.
 * Short lease settings (the chart's leaderElection values 8 s / 6 s / 1 s) keep the test quick and survive a loaded machine.
 */
import { readFileSync } from 'node:fs';
import { kubectlOk } from '../../kube/kubectl.js';
import type { Manifest } from '../../chart/render.js';
import { startPod, type RunningPod } from './chart-pods.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, eventually, type LoggedProcess } from './helpers.js';
import { aZGuest } from './shared-host.js';

/** the Lease of the one host `default` (runtime/sharding: `<leader-election-id>-host-<host>`) */
const HOST_LEASE = 'zvm-operator-leader-host-default';
let deployment: Manifest | undefined;
/** pods by name (`zvm-operator-<n>`, the POD_NAME their identity starts with) */
const operators = new Map<string, LoggedProcess>();
const pods: RunningPod[] = [];
// the chart applied, its pods started one by one below so that the first one surely leads
const suite = chartPodsForSuite({
  start: () => false,
  set: [
    'rest.enabled=false,controller.leaderElection.leaseDuration=8s,controller.leaderElection.renewDeadline=6s,controller.leaderElection.retryPeriod=1s',
    'controller.extraArgs={--poll-ms=200}',
  ],
  cleanup: async () => {
    for (const pod of pods) await pod.stop();
  },
});
const { env } = suite;

/** Pod n of the chart's Deployment as rendered, started like a ReplicaSet would (chart-pods.ts). */
async function startOperator(index: number): Promise<LoggedProcess> {
  if (!deployment) throw new Error('the chart was not installed (see beforeAll)');
  const pod = await startPod(env(), deployment, { index }); // ready = informers synced: a standby keeps a warm cache
  pods.push(pod);
  const proc = pod.containers.controller?.proc;
  if (!proc) throw new Error('the chart rendered no controller container');
  operators.set(pod.name, proc);
  return proc;
}

/** identity prefixes of the three pods (POD_NAME_<random>) */
const [A, B, C] = ['zvm-operator-0_', 'zvm-operator-1_', 'zvm-operator-2_'];

async function holder(): Promise<string> {
  return kubectlOk(['get', 'lease', '-n', env().namespace, HOST_LEASE, '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig: env().kubeconfig })
    .catch(() => '');
}

async function waitReady(name: string): Promise<void> {
  await kubectlOk(['wait', '-n', env().namespace, '--for=condition=Ready', `zg/${name}`, '--timeout=60s'], { kubeconfig: env().kubeconfig, timeoutMs: 70_000 });
}

beforeAll(async () => {
  deployment = suite.install().objects.find((m) => m.kind === 'Deployment');
  const first = await startOperator(0);
  await eventually('zvm-operator-0 to hold the Lease', async () => (await holder()).startsWith(A), [first]);
  await startOperator(1);
}, 240_000);

describe('leader election between operator processes', () => {
  it('lets the leader reconcile while the standby waits', async () => {
    await applyObjects(env(), [aZGuest('first', 'FIRST01')]);
    await waitReady('first');
    expect((await suite.host().hypervisor.describeGuest('FIRST01'))?.power).toBe('on');
    expect((await holder()).startsWith(A)).toBe(true);
    const standbyLog = readFileSync(operators.get('zvm-operator-1')!.logPath, 'utf8');
    expect(standbyLog).not.toContain('"msg":"host acquired"');
  }, 180_000);

  it('fails over to the standby when the leader is killed, which finishes the pending work', async () => {
    const leader = operators.get('zvm-operator-0')!;
    leader.child.kill('SIGKILL');
    await leader.exited;
    await applyObjects(env(), [aZGuest('second', 'SECOND01')]);
    await eventually('zvm-operator-1 to take the Lease', async () => (await holder()).startsWith(B), [operators.get('zvm-operator-1')!], 30_000);
    await waitReady('second');
    expect((await suite.host().hypervisor.describeGuest('SECOND01'))?.power).toBe('on');
    const transitions = await kubectlOk(['get', 'lease', '-n', env().namespace, HOST_LEASE, '-o', 'jsonpath={.spec.leaseTransitions}'], { kubeconfig: env().kubeconfig });
    expect(Number(transitions)).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('hands the Lease over on SIGTERM without waiting for it to expire', async () => {
    const next = await startOperator(2); // the pod the ReplicaSet would start in place of the killed one
    const leader = operators.get('zvm-operator-1')!;
    leader.child.kill('SIGTERM');
    expect(await leader.exited).toBe(0);
    // released: empty holder (or the new pod already), never the old leader's identity lingering until expiry
    expect((await holder()).startsWith(B)).toBe(false);
    await eventually('zvm-operator-2 to take the Lease', async () => (await holder()).startsWith(C), [next], 30_000);
    await applyObjects(env(), [aZGuest('third', 'THIRD01', 'Off')]);
    await waitReady('third');
    expect(await suite.host().hypervisor.describeGuest('THIRD01')).toMatchObject({ power: 'off' });
  }, 180_000);
});
