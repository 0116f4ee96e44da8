/**
 * Error paths of the sharded deployment (issue 21) between real controller processes: a ZGuest naming
 * a host that has no ZHost shows HostNotFound in `kubectl get zg` within 30 s — with one replica, with
 * two, and after the replica reporting them left — and recovers once the ZHost appears. Deleting a
 * ZHost its guests still name is held (GuestsRemaining) until they are gone, and no `kubectl delete zg`
 * hangs: not of a guest on the held host, not of one whose host never existed.
 */
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { applyObjects, eventually, jsonpath } from './helpers.js';
import { shardedReplicasForSuite } from './sharded-suite.js';
import { aGuestOn } from './sharding-env.js';

const TEST_MS = 240_000;
/** the bound: the unknown host shows within this long */
const REPORT_MS = 30_000;
const UNASSIGNED_LEASE = 'zvm-operator-leader-unassigned';
// two hosts: the simulator names its ports (smapiPorts) only when it serves several hosts
const suite = shardedReplicasForSuite({ hosts: 2, addresses: ['127.0.0.11'] });
const env = suite.env;
const replicas = suite.replicas;

const procs = suite.procs;
const getZg = async (name: string) => (await kubectlOk(['get', 'zg', name, '-n', env().namespace], { kubeconfig: env().kubeconfig })).trim().split('\n');

/** `kubectl get zg <name>` shows HostNotFound within the bound; the row then says Failed, not Ready, and why. */
async function expectHostNotFound(name: string): Promise<void> {
  await eventually(`${name} to show HostNotFound in kubectl get zg`, async () => (await getZg(name))[1]?.includes('HostNotFound') === true, procs(), REPORT_MS);
  const [header, row] = await getZg(name);
  expect(header).toMatch(/PHASE\s+READY\s+REASON\s+AGE$/);
  expect(row).toMatch(/\sFailed\s+False\s+HostNotFound\s+\S+$/);
  const events = await kubectlOk(['get', 'events', '-n', env().namespace, '--field-selector', `involvedObject.name=${name},reason=HostNotFound`, '-o', 'jsonpath={.items[*].type}'], { kubeconfig: env().kubeconfig });
  expect(events.split(' ')).toContain('Warning');
}

/**
 * A ZHost named `name` for the simulator's second host (h2 is never used under its own name): served
 * from memory by the sim process, so nothing of an earlier run is found there.
 */
async function aZHostOnH2(name: string): Promise<Record<string, unknown>> {
  const h2 = JSON.parse(await kubectlOk(['get', 'zhost', 'h2', '-o', 'json'], { kubeconfig: env().kubeconfig })) as { spec: unknown };
  return { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name }, spec: h2.spec };
}

async function waitReady(names: string[]): Promise<void> {
  await kubectlOk(['wait', '-n', env().namespace, '--for=condition=Ready', ...names.map((n) => `zg/${n}`), '--timeout=90s'], { kubeconfig: env().kubeconfig, timeoutMs: 100_000 });
}

/** kubectl delete that must finish: bounded, and its failure (a timeout) fails the test. */
async function deleteZg(names: string[]): Promise<void> {
  await kubectlOk(['delete', 'zg', ...names, '-n', env().namespace, '--timeout=60s'], { kubeconfig: env().kubeconfig, timeoutMs: 70_000 });
}

describe('a resource naming a host without a ZHost, sharded', () => {
  it('one replica: HostNotFound with a Warning Event within 30 s, Ready once the ZHost appears', async () => {
    await applyObjects(env(), [aGuestOn('typo1', 'TYPO1', 'nope1')]);
    await expectHostNotFound('typo1');
    // no finalizer: nothing was made on any host
    expect(await jsonpath(env(), 'zg/typo1', '{.metadata.finalizers}')).toBe('');
    await applyObjects(env(), [await aZHostOnH2('nope1')]);
    await waitReady(['typo1']);
  }, TEST_MS);

  it('two replicas: the same, also after the replica that reported them has left', async () => {
    await suite.addReplica(1, '127.0.0.12');
    await applyObjects(env(), [aGuestOn('typo2', 'TYPO2', 'nope2')]);
    await expectHostNotFound('typo2');

    const holder = await kubectlOk(['get', 'lease', UNASSIGNED_LEASE, '-n', env().namespace, '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig: env().kubeconfig });
    const leaving = replicas.find((r) => r.identity === holder);
    expect(leaving).toBeDefined();
    leaving!.proc.child.kill('SIGTERM');
    expect(await leaving!.proc.exited).toBe(0);
    replicas.splice(replicas.indexOf(leaving!), 1);
    await applyObjects(env(), [aGuestOn('typo3', 'TYPO3', 'nope3')]);
    await expectHostNotFound('typo3');
    expect(await kubectlOk(['get', 'lease', UNASSIGNED_LEASE, '-n', env().namespace, '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig: env().kubeconfig })).toBe(replicas[0]!.identity);
  }, TEST_MS);
});

describe('deleting a ZHost that guests still name', () => {
  it('is held with GuestsRemaining until its guests are deleted, and no kubectl delete zg hangs', async () => {
    const { kubeconfig } = env();
    await applyObjects(env(), [aGuestOn('held1', 'HELD1', 'h1')]);
    await waitReady(['held1']);
    await kubectlOk(['delete', 'zhost', 'h1', '--wait=false'], { kubeconfig });
    await eventually('the deletion of h1 to be held', async () => (await jsonpath(env(), 'zhost/h1', '{.status.conditions[?(@.type=="GuestsRemaining")].status}')) === 'True', procs(), 60_000);
    expect(await jsonpath(env(), 'zhost/h1', '{.status.conditions[?(@.type=="GuestsRemaining")].message}')).toMatch(/^1 ZGuest still on this host/);
    // the host is still there for its guest: a plain delete of the guest completes, on the host too
    expect(await jsonpath(env(), 'zg/held1', '{.status.conditions[?(@.type=="Ready")].status}')).toBe('True');
    await deleteZg(['held1']);
    await eventually('h1 to be gone once its last guest is', async () => (await kubectl(['get', 'zhost', 'h1', '-o', 'name'], { kubeconfig })).code !== 0, procs(), 60_000);
    // guests whose host never existed carry no finalizer: deleting them does not wait for anyone
    await deleteZg(['typo2', 'typo3']);
  }, TEST_MS);

  it('a guest whose ZHost was removed anyway reports it, and deletionPolicy: Orphan lets it go', async () => {
    const { kubeconfig, namespace } = env();
    await applyObjects(env(), [await aZHostOnH2('gone'), aGuestOn('stranded', 'STRAND1', 'gone')]);
    await waitReady(['stranded']);
    // past the protection: deleted, then its finalizer stripped by hand
    await kubectlOk(['delete', 'zhost', 'gone', '--wait=false'], { kubeconfig });
    await kubectlOk(['patch', 'zhost', 'gone', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'], { kubeconfig });
    await kubectlOk(['wait', 'zhost/gone', '--for=delete', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    await expectHostNotFound('stranded');
    await kubectlOk(['delete', 'zg', 'stranded', '-n', namespace, '--wait=false'], { kubeconfig });
    await eventually('the held deletion to say how it ends', async () => /set spec\.deletionPolicy: Orphan/.test(
      await jsonpath(env(), 'zg/stranded', '{.status.conditions[?(@.type=="Synced")].message}')), procs(), REPORT_MS);
    await kubectlOk(['patch', 'zg', 'stranded', '-n', namespace, '--type=merge', '-p', '{"spec":{"deletionPolicy":"Orphan"}}'], { kubeconfig });
    await kubectlOk(['wait', 'zg/stranded', '-n', namespace, '--for=delete', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
  }, TEST_MS);
});
