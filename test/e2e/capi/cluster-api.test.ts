/**
 * The z/VM provider under the real Cluster API controllers: the core manager and the kubeadm bootstrap
 * provider (built from sigs.k8s.io/cluster-api v1.14.2 by test/capi/toolchain.sh) run as processes against
 * the test kube-apiserver with their webhooks on loopback (test/capi/managers.ts), beside our compiled
 * controller and the simulated ZHost. The cluster is what the real `clusterctl generate cluster` renders
 * from our md flavor, with a Machine-based control plane instead of KubeadmControlPlane (a
 * KubeadmControlPlane needs etcd and static pods in the workload cluster): one control-plane Machine with a
 * KubeadmConfig, the cluster's CA and kubeconfig Secrets pointing at the test apiserver itself (as Cluster
 * API's in-memory provider does), and a MachineDeployment of workers. The test stands in for each kubelet
 * by registering a Node with the machine's providerID. Each management cluster is made by `clusterctl init
 * --infrastructure zvm` from our generated repository folder (test/capi/clusterctl-init.ts says what init
 * needs here and how it gets it), and our controller runs with the args of the Deployment init installed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { ZVMMachine } from '../../../src/api/index.js';
import { repositoryDir } from '../../../src/capi/render.js';
import { installedManagerArgs, PROVIDER_NAMESPACE, startManagementCluster, type ManagementCluster } from '../../capi/clusterctl-init.js';
import { resolveCapiToolchain, type CapiToolchain } from '../../capi/toolchain.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { eventually, REPO, stopProcess, tailLog, type LoggedProcess, type OperatorEnv } from '../operator/helpers.js';
import { countCallLog, writesOf } from '../upgrade/smapi-calls.js';
import { findIn, generateCluster, kubectlOn, started, type Generated } from './cluster-env.js';
import { startProviderEnv, type ProviderEnv } from './provider-env.js';

const run = promisify(execFile);
const NS = 'c1-ns';
const CLUSTER = 'c1';
const BOUND_MS = 180_000;
let mc: ManagementCluster | undefined;
let o: OperatorEnv | undefined;
let p: ProviderEnv | undefined;
let generated: Generated[] = [];
let capi: CapiToolchain;
/** The second management cluster of `clusterctl move`. */
let target: ManagementCluster | undefined;

const env = started('the kube test env', () => o);
const prov = started('the provider env', () => p);
const watched = (): LoggedProcess[] => [prov().controller, ...(mc?.managers.processes ?? [])];
const { kc, getJson, apply } = kubectlOn(env);
const find = (kind: string, name?: string) => findIn(generated, kind, name);

interface Machine { metadata: { name: string; labels?: Record<string, string> }; spec: { bootstrap: { dataSecretName?: string }; infrastructureRef: { name: string } }; status?: { phase?: string; nodeRef?: { name: string } } }
const machines = async (): Promise<Machine[]> => (await getJson<{ items: Machine[] }>(['get', '-n', NS, 'machines.cluster.x-k8s.io'])).items;
const zvmMachines = async (): Promise<ZVMMachine[]> => (await getJson<{ items: ZVMMachine[] }>(['get', '-n', NS, 'zvmmachine'])).items;
const workers = async (): Promise<Machine[]> => (await machines()).filter((m) => m.metadata.labels?.['cluster.x-k8s.io/deployment-name'] === `${CLUSTER}-md-0`);
/** The guests the provider made on the host (userid prefix K8S), sorted. */
const guests = async (): Promise<string[]> => (await prov().hv.listDirectory()).filter((u) => u.startsWith('K8S')).sort();

/** Waits, with what the cluster's objects and the managers say on failure. */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  await eventually(what, probe, watched(), BOUND_MS).catch(async (err: unknown) => {
    const objects = await kc(['get', '-n', NS, 'cluster,machine,machineset,machinedeployment,kubeadmconfig,zvmmachine,zguest', '-o', 'wide']).catch((e: Error) => e.message);
    const logs = watched().map((l) => `--- ${l.name} ---\n${tailLog(l, 3000)}`).join('\n');
    throw new Error(`${(err as Error).message}\n${objects}\n${logs}`, { cause: err });
  });
}

/** What each guest's kubelet would do: register a Node with the machine's providerID. */
async function registerNodes(): Promise<void> {
  const nodes = await getJson<{ items: { spec?: { providerID?: string } }[] }>(['get', 'nodes']);
  const known = new Set(nodes.items.map((n) => n.spec?.providerID));
  for (const zm of await zvmMachines()) {
    const id = zm.spec.providerID;
    if (!zm.status?.initialization?.provisioned || !id || known.has(id)) continue;
    await apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: zm.status.userid!.toLowerCase() }, spec: { providerID: id } });
  }
}

/**
 * Every machine's ZVMMachine provisioned with its providerID, its guest logged on and the bootstrap
 * Secret's value inside the config drive in the guest's reader; then its Node registered and the Machine
 * Running.
 */
async function expectMachinesRunning(count: number, which: () => Promise<Machine[]>): Promise<void> {
  await until(`${count} machines provisioned`, async () => {
    const ms = await which();
    const zms = new Map((await zvmMachines()).map((z) => [z.metadata!.name, z]));
    return ms.length === count && ms.every((m) => zms.get(m.spec.infrastructureRef.name)?.status?.initialization?.provisioned === true);
  });
  for (const m of await which()) {
    const zm = await getJson<ZVMMachine>(['get', '-n', NS, 'zvmmachine', m.spec.infrastructureRef.name]);
    const userid = zm.status!.userid!;
    expect(zm.spec.providerID).toBe(`zvm://default/${userid}`);
    expect(await prov().hv.queryPowerState(userid)).toBe('on');
    const secret = await getJson<{ data: { value: string; format: string } }>(['get', '-n', NS, 'secret', m.spec.bootstrap.dataSecretName!]);
    const value = Buffer.from(secret.data.value, 'base64');
    expect(Buffer.from(secret.data.format, 'base64').toString()).toBe('cloud-config');
    expect(value.toString()).toContain('kubeadm'); // written by the kubeadm bootstrap provider
    const [file] = prov().readerOf(userid);
    expect(file).toMatchObject({ name: 'cfgdrive', fileType: 'iso' });
    expect(Buffer.from(file!.data!, 'base64').includes(value)).toBe(true);
  }
  await until(`${count} machines Running`, async () => {
    await registerNodes();
    const ms = await which();
    return ms.length === count && ms.every((m) => m.status?.phase === 'Running' && m.status.nodeRef);
  });
}

beforeAll(async () => {
  capi = await resolveCapiToolchain();
  mc = await startManagementCluster(capi);
  o = mc.o;
  await kc(['create', 'namespace', NS]);
  p = await startProviderEnv(o, await installedManagerArgs(o));
  generated = await generateCluster(capi, o, { name: CLUSTER, namespace: NS, endpointHost: '127.0.0.1' });
}, 400_000);

afterAll(async () => {
  await p?.stop();
  await target?.stop();
  await mc?.stop();
}, 90_000);

describe('the z/VM provider under the real Cluster API controllers', () => {
  it('clusterctl init --infrastructure zvm installs the generated components from the local repository', async () => {
    // cert-manager's CRDs answered init's check, so it installed no cert-manager of its own
    expect(mc!.initOutput).toContain('Skipping installing cert-manager as it is already installed');
    const providers = await getJson<{ items: { metadata: { name: string; namespace: string }; type: string; version: string }[] }>(['get', 'providers.clusterctl.cluster.x-k8s.io', '-A']);
    expect(providers.items.find((i) => i.metadata.name === 'infrastructure-zvm')).toMatchObject({ metadata: { namespace: PROVIDER_NAMESPACE }, type: 'InfrastructureProvider', version: 'v0.1.0' });
    // every CRD of the components, labelled by init (move finds the kinds it carries by that label)
    const components = parseAllDocuments(readFileSync(join(REPO, repositoryDir(), 'infrastructure-components.yaml'), 'utf8')).map((d) => d.toJSON() as { kind: string; metadata: { name: string } });
    const crds = await getJson<{ items: { metadata: { name: string; labels: Record<string, string> } }[] }>(['get', 'crd', '-l', 'cluster.x-k8s.io/provider=infrastructure-zvm']);
    expect(crds.items.map((c) => c.metadata.name).sort()).toEqual(components.filter((c) => c.kind === 'CustomResourceDefinition').map((c) => c.metadata.name).sort());
    for (const c of crds.items) expect(c.metadata.labels).toHaveProperty(['clusterctl.cluster.x-k8s.io'], '');
    // the controller under test runs with the args of the Deployment init created
    expect(await installedManagerArgs(env())).toEqual(expect.arrayContaining(['controller', '--capi', '--namespace=$(POD_NAMESPACE)']));
  });

  it('provisions the cluster and its Machine-based control plane; the Machine reaches Running once its Node registers', async () => {
    const labels = { 'cluster.x-k8s.io/cluster-name': CLUSTER };
    const secret = (name: string, data: Record<string, Buffer>) => ({
      apiVersion: 'v1', kind: 'Secret', type: 'cluster.x-k8s.io/secret', metadata: { name, namespace: NS, labels },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('base64')])),
    });
    // the workload cluster is the test apiserver: its CA signs the cluster's certificates, its admin kubeconfig
    await apply(
      secret(`${CLUSTER}-ca`, { 'tls.crt': readFileSync(join(env().env.tempDir, 'ca.crt')), 'tls.key': readFileSync(join(env().env.tempDir, 'ca.key')) }),
      secret(`${CLUSTER}-kubeconfig`, { value: readFileSync(env().kubeconfig) }),
    );
    const cluster = find('Cluster');
    delete cluster.spec.controlPlaneRef;
    const zvmCluster = find('ZVMCluster');
    zvmCluster.spec.controlPlaneEndpoint.port = Number(new URL(env().env.server).port);
    // the simulated host has no images or classes: the guest's size instead
    const template = find('ZVMMachineTemplate', `${CLUSTER}-md-0`);
    template.spec.template.spec = { ...template.spec.template.spec, image: undefined, class: undefined, vcpus: 1, memory: '1G' };
    const cpName = `${CLUSTER}-control-plane-0`;
    await apply(cluster, zvmCluster, template,
      { apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1', kind: 'ZVMMachine', metadata: { name: cpName, namespace: NS, labels }, spec: template.spec.template.spec },
      {
        apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfig', metadata: { name: cpName, namespace: NS, labels },
        spec: find('KubeadmConfigTemplate').spec.template.spec, // no joinConfiguration: the first control-plane machine runs kubeadm init
      },
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine',
        metadata: { name: cpName, namespace: NS, labels: { ...labels, 'cluster.x-k8s.io/control-plane': '' } },
        spec: {
          clusterName: CLUSTER, version: 'v1.32.0',
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: cpName } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ZVMMachine', name: cpName },
        },
      });
    await until('the Cluster infrastructure-provisioned with the ZVMCluster endpoint', async () => {
      const c = await getJson<{ spec: { controlPlaneEndpoint?: { port?: number } }; status?: { initialization?: { infrastructureProvisioned?: boolean } } }>(['get', '-n', NS, 'cluster', CLUSTER]);
      return c.status?.initialization?.infrastructureProvisioned === true && c.spec.controlPlaneEndpoint?.port === zvmCluster.spec.controlPlaneEndpoint.port;
    });
    const controlPlane = async () => (await machines()).filter((m) => m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined);
    await expectMachinesRunning(1, controlPlane);
    // without a controlPlaneRef the Cluster reports it in its ControlPlaneInitialized condition (the first
    // control-plane Machine has its Node); status.initialization.controlPlaneInitialized is a control-plane provider's
    await until('the control plane initialized', async () => {
      const c = await getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(['get', '-n', NS, 'cluster', CLUSTER]);
      return c.status?.conditions?.some((x) => x.type === 'ControlPlaneInitialized' && x.status === 'True') === true;
    });
    expect(await guests()).toHaveLength(1);
  }, 400_000);

  it('runs a MachineDeployment of two workers: guests logged on with their kubeadm join data in the reader, Machines Running', async () => {
    await apply(find('KubeadmConfigTemplate'), find('MachineDeployment'));
    await expectMachinesRunning(2, workers);
    expect(await guests()).toHaveLength(3);
  }, 400_000);

  it('scales the workers 2 → 3 → 1 and the guests follow', async () => {
    await kc(['scale', '-n', NS, 'machinedeployment', `${CLUSTER}-md-0`, '--replicas=3']);
    await expectMachinesRunning(3, workers);
    await until('4 guests', async () => (await guests()).length === 4);
    await kc(['scale', '-n', NS, 'machinedeployment', `${CLUSTER}-md-0`, '--replicas=1']);
    await until('1 worker and 2 guests', async () => (await workers()).length === 1 && (await guests()).length === 2);
    const left = await zvmMachines();
    expect(left.map((z) => z.status?.userid).sort()).toEqual(await guests());
  }, 600_000);

  it('clusterctl move to a second management cluster and back changes nothing on the host', async () => {
    target = await startManagementCluster(capi);
    const to = target.o;
    const tController = await prov().attach(to, await installedManagerArgs(to));
    // each guest's directory entry (its owner mark), power and reader files: a re-created guest differs
    const snapshot = async () => Promise.all((await guests()).map(async (u) => ({
      userid: u, directory: (await prov().hv.describeGuest(u))?.directory.lines, power: await prov().hv.queryPowerState(u), reader: prov().readerOf(u),
    })));
    const before = await snapshot();
    const calls = () => countCallLog(readFileSync(prov().host.callLog, 'utf8'));
    const callsBefore = calls();
    const clusterctl = (from: string, to: string) => run(capi.clusterctl, ['move', '--kubeconfig', from, '--to-kubeconfig', to, '-n', NS], {
      env: { ...process.env, HOME: env().env.tempDir, CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' }, timeout: 180_000,
    }).catch((err: { stderr?: string; message: string }) => { throw new Error(`clusterctl move: ${err.stderr ?? err.message}`); });
    const running = async (kubeconfig: string) => {
      const got = JSON.parse(await kubectlOk(['get', '-n', NS, 'machines.cluster.x-k8s.io,zvmmachines', '-o', 'json'], { kubeconfig })) as { items: (Machine & ZVMMachine & { kind: string })[] };
      const ms = got.items.filter((i) => i.kind === 'Machine');
      const zms = got.items.filter((i) => i.kind === 'ZVMMachine');
      return ms.length === 2 && ms.every((m) => m.status?.phase === 'Running') && zms.length === 2 && zms.every((z) => z.status?.initialization?.provisioned === true);
    };
    await clusterctl(env().kubeconfig, to.kubeconfig);
    await until('the machines Running and provisioned in the second cluster', () => running(to.kubeconfig));
    expect(await machines()).toEqual([]);
    await clusterctl(to.kubeconfig, env().kubeconfig);
    await until('the machines Running and provisioned back home', () => running(env().kubeconfig));
    expect(JSON.parse(await kubectlOk(['get', '-n', NS, 'machines.cluster.x-k8s.io', '-o', 'json'], { kubeconfig: to.kubeconfig })).items).toEqual([]);
    await stopProcess(tController);
    await target.stop();
    target = undefined;
    // the same guests with the same reader files, and not one SMAPI write
    expect(await snapshot()).toEqual(before);
    const after = calls();
    const moved = Object.fromEntries(Object.entries(after).map(([fn, n]) => [fn, n - (callsBefore[fn] ?? 0)]).filter(([, n]) => (n as number) > 0));
    expect(writesOf(moved as Record<string, number>)).toEqual({});
  }, 600_000);

  it('deleting the Cluster removes every machine and every guest', async () => {
    await kc(['delete', '-n', NS, 'cluster', CLUSTER, '--wait=false']);
    await until('the Cluster gone', async () => (await kc(['get', '-n', NS, 'cluster', '-o', 'name'])).trim() === '');
    expect(await machines()).toEqual([]);
    expect(await zvmMachines()).toEqual([]);
    expect(await guests()).toEqual([]);
  }, 400_000);
});
