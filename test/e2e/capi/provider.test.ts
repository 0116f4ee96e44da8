/**
 * The z/VM Cluster API provider on a real kube-apiserver, as clusterctl installs it: Cluster API's own CRDs
 * (from the sigs.k8s.io/cluster-api module, test/capi/toolchain.sh), our components' CRDs, and the compiled
 * controller started with the args of the components' `manager` container; the cluster rendered by the
 * real `clusterctl generate cluster` from our md flavor. Cluster API's controllers do not run here: the
 * test writes the Machine, the bootstrap Secret and the Cluster's status as they would (what the
 * in-memory provider's tests stand in for too). The ZHost is `zvm-operator sim` with its SSH management
 * guest; the bootstrap data is read back from the simulator's state file, byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZVMMachine } from '../../../src/api/index.js';
import { resolveCapiToolchain, type CapiToolchain } from '../../capi/toolchain.js';
import { eventually, startOperatorEnv, tailLog, type OperatorEnv } from '../operator/helpers.js';
import { findIn, generateCluster, kubectlOn, started, type Generated } from './cluster-env.js';
import { startProviderEnv, type ProviderEnv } from './provider-env.js';

const NS = 'c1-ns';
let o: OperatorEnv | undefined;
let capi: CapiToolchain;
let p: ProviderEnv | undefined;
let generated: Generated[] = [];

const env = started('the kube test env', () => o);
const prov = started('the provider env', () => p);
const { kc, getJson } = kubectlOn(env);

beforeAll(async () => {
  capi = await resolveCapiToolchain();
  o = await startOperatorEnv('capzvm-system');
  // Cluster API's CRDs as its module ships them (server-side: they are larger than an annotation may hold)
  const crdDir = join(capi.configDir, 'core', 'crd', 'bases');
  for (const f of readdirSync(crdDir).filter((n) => n.startsWith('cluster.x-k8s.io_'))) await kc(['apply', '--server-side', '-f', join(crdDir, f)]);
  await kc(['wait', '--for=condition=Established', 'crd/clusters.cluster.x-k8s.io', 'crd/machines.cluster.x-k8s.io', '--timeout=60s']);
  await kc(['create', 'namespace', NS]);
  p = await startProviderEnv(o);
  generated = await generateCluster(capi, o, { name: 'c1', namespace: NS, endpointHost: '192.0.2.10' });
}, 300_000);

afterAll(async () => {
  await p?.stop();
  await o?.env.stop();
}, 60_000);

const find = (kind: string, name?: string) => findIn(generated, kind, name);

describe('the z/VM Cluster API provider', () => {
  it('provisions the ZVMCluster clusterctl generated: failure domain default, endpoint passed through', async () => {
    await kc(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [find('Cluster'), find('ZVMCluster')] }));
    const cluster = await getJson<{ metadata: { uid: string } }>(['get', '-n', NS, 'clusters.cluster.x-k8s.io', 'c1']);
    // Cluster API's cluster controller makes the Cluster own its infrastructure object
    await kc(['patch', '-n', NS, 'zvmcluster', 'c1', '--type=merge', '-p', JSON.stringify({ metadata: { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: cluster.metadata.uid }] } })]);
    await eventually('ZVMCluster c1 provisioned', async () => {
      const zc = await getJson<{ status?: { initialization?: { provisioned?: boolean }; failureDomains?: { name: string }[] } }>(['get', '-n', NS, 'zvmcluster', 'c1']);
      return zc.status?.initialization?.provisioned === true && zc.status.failureDomains?.[0]?.name === 'default';
    }, [prov().controller]);
    await kc(['patch', '-n', NS, 'clusters.cluster.x-k8s.io', 'c1', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { initialization: { infrastructureProvisioned: true } } })]);
  }, 120_000);

  it('makes a worker\'s guest from the generated ZVMMachineTemplate, punches its bootstrap data to the reader and logs it on', async () => {
    const template = find('ZVMMachineTemplate', 'c1-md-0') as { spec: { template: { spec: Record<string, unknown> } } };
    const bootstrap = Buffer.from(`#cloud-config\nruncmd:\n  - kubeadm join 192.0.2.10:6443 --token ${randomBytes(6).toString('hex')}\n`);
    await kc(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c1-md-0-w1', namespace: NS }, type: 'cluster.x-k8s.io/secret', data: { value: bootstrap.toString('base64'), format: Buffer.from('cloud-config').toString('base64') } }));
    const labels = { 'cluster.x-k8s.io/cluster-name': 'c1' };
    await kc(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name: 'c1-md-0-w1', namespace: NS, labels },
      spec: { clusterName: 'c1', version: 'v1.32.0', bootstrap: { dataSecretName: 'c1-md-0-w1' }, infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ZVMMachine', name: 'c1-md-0-w1' } },
    }));
    const machine = await getJson<{ metadata: { uid: string } }>(['get', '-n', NS, 'machines.cluster.x-k8s.io', 'c1-md-0-w1']);
    // what a MachineSet does: clone the template's spec, owned by the Machine
    await kc(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1', kind: 'ZVMMachine',
      metadata: { name: 'c1-md-0-w1', namespace: NS, labels, ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'c1-md-0-w1', uid: machine.metadata.uid, controller: true }] },
      spec: { ...template.spec.template.spec, image: undefined, vcpus: 1, memory: '1G', class: undefined },
    }));
    let zm: ZVMMachine | undefined;
    await eventually('ZVMMachine c1-md-0-w1 provisioned', async () => {
      zm = await getJson<ZVMMachine>(['get', '-n', NS, 'zvmmachine', 'c1-md-0-w1']);
      return zm.status?.initialization?.provisioned === true;
    }, [prov().controller], 120_000).catch(async (err: unknown) => {
      // what the machine and its guest say, for the failure message
      const objects = await kc(['get', '-n', NS, 'zvmmachine,zguest', '-o', 'yaml']).catch((e: Error) => e.message);
      throw new Error(`${(err as Error).message}\n${objects}\n${tailLog(prov().controller, 6000)}`, { cause: err });
    });
    const userid = zm!.status!.userid!;
    expect(zm!.spec.providerID).toBe(`zvm://default/${userid}`);
    expect(zm!.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect(await prov().hv.queryPowerState(userid)).toBe('on');
    const [file] = prov().readerOf(userid);
    expect(file).toMatchObject({ name: 'cfgdrive', fileType: 'iso' });
    // the cloud-config sits in the config drive's user_data, byte for byte
    const iso = Buffer.from(file!.data!, 'base64');
    expect(iso.subarray(16 * 2048 + 40, 16 * 2048 + 48).toString()).toBe('config-2');
    expect(iso.includes(bootstrap)).toBe(true);
    expect(readFileSync(join(env().env.tempDir, 'manager.log'), 'utf8')).not.toContain(bootstrap.toString('base64'));
  }, 180_000);

  it('deletes the guest when the ZVMMachine goes', async () => {
    const userid = (await getJson<ZVMMachine>(['get', '-n', NS, 'zvmmachine', 'c1-md-0-w1'])).status!.userid!;
    await kc(['delete', '-n', NS, 'zvmmachine', 'c1-md-0-w1', '--wait=false']);
    await eventually(`guest ${userid} deleted`, async () => !(await prov().hv.listDirectory()).includes(userid), [prov().controller], 120_000);
    await eventually('ZVMMachine gone', async () => (await kc(['get', '-n', NS, 'zvmmachine', '-o', 'name'])).trim() === '', [prov().controller]);
  }, 180_000);
});
