/**
 * Failover between real operator processes sharing one host (a `zvm-operator sim` process): only the
 * holder of the host's Lease reconciles; after the leader is SIGKILLed the standby takes the Lease once it
 * expires and finishes the work created meanwhile; on SIGTERM a leader hands the Lease over at once.
 * Short lease settings (8 s / 6 s / 1 s) keep the test quick and survive a loaded machine.
 */
import { readFileSync } from 'node:fs';
import { kubectlOk } from '../../kube/kubectl.js';
import {
  applyObjects, eventually, freePort, spawnCli, startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv,
} from './helpers.js';
import { aZGuest, startSharedHost, type SharedHost } from './shared-host.js';

/** the Lease of the one host `default` (runtime/sharding: `<leader-election-id>-host-<host>`) */
const HOST_LEASE = 'zvm-operator-leader-host-default';
let o: OperatorEnv | undefined;
let host: SharedHost | undefined;
const operators = new Map<string, LoggedProcess>();

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}

async function startOperator(name: string): Promise<LoggedProcess> {
  const probePort = await freePort();
  const proc = spawnCli(env(), name, [
    'controller', '--kubeconfig', env().kubeconfig, '--namespace', env().namespace,
    '--health-probe-bind-address', `127.0.0.1:${probePort}`, '--metrics-bind-address', '0', '--poll-ms', '200',
    '--leader-elect-lease-duration', '8s', '--leader-elect-renew-deadline', '6s', '--leader-elect-retry-period', '1s',
  ], { POD_NAME: name });
  operators.set(name, proc);
  // ready = informers synced: a standby keeps a warm cache
  await eventually(`${name} to be ready`, async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).ok, [proc]);
  return proc;
}

async function holder(): Promise<string> {
  return kubectlOk(['get', 'lease', '-n', env().namespace, HOST_LEASE, '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig: env().kubeconfig })
    .catch(() => '');
}

async function waitReady(name: string): Promise<void> {
  await kubectlOk(['wait', '-n', env().namespace, '--for=condition=Ready', `zg/${name}`, '--timeout=60s'], { kubeconfig: env().kubeconfig, timeoutMs: 70_000 });
}

beforeAll(async () => {
  o = await startOperatorEnv();
  host = await startSharedHost(o);
  const first = await startOperator('op-a');
  await eventually('op-a to hold the Lease', async () => (await holder()).startsWith('op-a_'), [first]);
  await startOperator('op-b');
}, 180_000);

afterAll(async () => {
  for (const proc of operators.values()) await stopProcess(proc);
  await host?.close();
  if (host) await stopProcess(host.sim);
  await o?.env.stop();
}, 60_000);

describe('leader election between operator processes', () => {
  it('lets the leader reconcile while the standby waits', async () => {
    await applyObjects(env(), [aZGuest('first', 'FIRST01')]);
    await waitReady('first');
    expect((await host!.hypervisor.describeGuest('FIRST01'))?.power).toBe('on');
    expect(await holder()).toMatch(/^op-a_/);
    const standbyLog = readFileSync(operators.get('op-b')!.logPath, 'utf8');
    expect(standbyLog).not.toContain('"msg":"host acquired"');
  }, 180_000);

  it('fails over to the standby when the leader is killed, which finishes the pending work', async () => {
    const leader = operators.get('op-a')!;
    leader.child.kill('SIGKILL');
    await leader.exited;
    await applyObjects(env(), [aZGuest('second', 'SECOND01')]);
    await eventually('op-b to take the Lease', async () => (await holder()).startsWith('op-b_'), [operators.get('op-b')!], 30_000);
    await waitReady('second');
    expect((await host!.hypervisor.describeGuest('SECOND01'))?.power).toBe('on');
    const transitions = await kubectlOk(['get', 'lease', '-n', env().namespace, HOST_LEASE, '-o', 'jsonpath={.spec.leaseTransitions}'], { kubeconfig: env().kubeconfig });
    expect(Number(transitions)).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('hands the Lease over on SIGTERM without waiting for it to expire', async () => {
    const next = await startOperator('op-c');
    const leader = operators.get('op-b')!;
    leader.child.kill('SIGTERM');
    expect(await leader.exited).toBe(0);
    // released: empty holder (or op-c already), never op-b's identity lingering until expiry
    expect(await holder()).not.toMatch(/^op-b_/);
    await eventually('op-c to take the Lease', async () => (await holder()).startsWith('op-c_'), [next], 30_000);
    await applyObjects(env(), [aZGuest('third', 'THIRD01', 'Off')]);
    await waitReady('third');
    expect(await host!.hypervisor.describeGuest('THIRD01')).toMatchObject({ power: 'off' });
  }, 180_000);
});
