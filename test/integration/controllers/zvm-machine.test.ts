/**
 * The Cluster API provider's reconcilers with the ZGuest reconciler over the embedded store, the simulator
 * and its SSH management guest: Cluster API's objects (Cluster, Machine, bootstrap Secret) are written as
 * its controllers write them; the ZVMMachine defines its guest, punches the bootstrap data to the guest's
 * reader (read back byte for byte from the simulator), starts it and reports providerID, provisioned and
 * addresses; deleting it deletes the guest and its reader.
 */
import { join } from 'node:path';
import {
  API_VERSION, BOOTSTRAP_PUNCHED_ANNOTATION, CAPI_API_VERSION, INFRA_API_VERSION, type Resource, type ZGuest, type ZHost, type ZVMCluster, type ZVMMachine,
} from '../../../src/api/index.js';
import { createZGuestReconciler } from '../../../src/controllers/index.js';
import { createZVMClusterReconciler } from '../../../src/controllers/zvm-cluster/reconciler.js';
import { createZVMMachineReconciler } from '../../../src/controllers/zvm-machine/reconciler.js';
import { createMgmtOps } from '../../../src/hypervisor/mgmt/index.js';
import type { MgmtOps } from '../../../src/hypervisor/image-port.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../../src/hypervisor/sim/ssh/index.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../../../src/log.js';
import type { Reconciler } from '../../../src/runtime/result.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import type { ObjectKey, StateStore } from '../../../src/store/port.js';
import { recordingEvents } from '../../builders/controller-harness.js';
import { tempDir } from '../../wire/mgmt-helpers.js';

const tmp = tempDir('zvm-capi-');
const ns = 'capi';
let sim: SimHost;
let ssh: SimSshServer;
let mgmt: MgmtOps;
let hv: Hypervisor;
let store: StateStore;
let machines: Reconciler;
let clusters: Reconciler;
let guests: Reconciler;
const events = recordingEvents();
const signal = new AbortController().signal;

beforeAll(async () => {
  sim = createSimHost();
  ssh = await startSimSshServer({ sim, dataDir: join(tmp.dir, 'mgmt'), username: 'zcc', password: 'pw' });
  mgmt = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: ssh.hostKeySha256 } });
  hv = createSmapiHypervisor({ hostName: 'zvm1', caller: createInProcessCaller({ handler: sim }), mgmt });
  store = createEmbeddedStore();
  const deps = { store, hypervisors: { forHost: (h: string) => (h === 'zvm1' ? hv : undefined) }, events, log: silentLogger(), pollMs: 1 };
  machines = createZVMMachineReconciler(deps);
  clusters = createZVMClusterReconciler({ store });
  guests = createZGuestReconciler({ ...deps, pollMs: 1 });
  await store.create<ZHost>({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'zvm1' }, spec: { simulated: true } });
});

afterAll(async () => {
  await hv.close();
  await ssh.close();
  await sim.close();
  tmp.cleanup();
});

const capi = (kind: string, name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: CAPI_API_VERSION, kind, metadata: { name, namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } }, spec, ...extra }) as Resource;

/** The machine and its guest reconciled in turn, as their controllers would, until the machine asks for nothing more. */
async function settle(key: ObjectKey, runs = 40): Promise<ZVMMachine | undefined> {
  for (let i = 0; i < runs; i++) {
    const r = await machines.reconcile(key, signal);
    if (await store.get('ZGuest', key)) await guests.reconcile(key, signal);
    if (r.requeueAfterMs === undefined) break;
  }
  return store.get<ZVMMachine>('ZVMMachine', key);
}

describe('ZVMMachine and ZVMCluster reconcilers', () => {
  const key = { namespace: ns, name: 'c1-md-0-abc' };
  const ignition = Buffer.from(JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [{ path: '/etc/kubernetes/bootstrap.conf', contents: { source: 'data:,secret-token' } }] } }));

  it('reports the cluster\'s ZHosts as failure domains and provisioned', async () => {
    const cluster = await store.create(capi('Cluster', 'c1', { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ZVMCluster', name: 'c1' } }));
    await store.create<ZVMCluster>({
      apiVersion: INFRA_API_VERSION, kind: 'ZVMCluster',
      metadata: { name: 'c1', namespace: ns, ownerReferences: [{ apiVersion: CAPI_API_VERSION, kind: 'Cluster', name: 'c1', uid: cluster.metadata.uid ?? '' }] },
      spec: { hosts: ['zvm1', 'zvm2'], controlPlaneEndpoint: { host: '192.0.2.10', port: 6443 } },
    });
    await clusters.reconcile({ namespace: ns, name: 'c1' }, signal);
    const zc = await store.get<ZVMCluster>('ZVMCluster', { namespace: ns, name: 'c1' });
    expect(zc?.status).toMatchObject({ initialization: { provisioned: true }, failureDomains: [{ name: 'zvm1', controlPlane: true }] });
    expect(zc?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', message: expect.stringContaining('ZHost zvm2 not found') });
    await store.patchStatus('Cluster', { namespace: ns, name: 'c1' }, { initialization: { infrastructureProvisioned: true } });
  });

  it('waits for the Machine\'s bootstrap data, then defines the guest, punches the data to its reader and starts it', async () => {
    const machine = await store.create(capi('Machine', 'm1', { clusterName: 'c1', infrastructureRef: { name: key.name } }));
    await store.create<ZVMMachine>({
      apiVersion: INFRA_API_VERSION, kind: 'ZVMMachine',
      metadata: { ...key, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, ownerReferences: [{ apiVersion: CAPI_API_VERSION, kind: 'Machine', name: 'm1', uid: machine.metadata.uid ?? '' }] },
      spec: { vcpus: 1, memory: '1G', disks: [{ size: '1G', pool: 'ECKD:POOL1', boot: true }], network: { osVersion: 'rhcos4', interfaces: [{ ipAddr: '192.0.2.21', cidr: '192.0.2.0/24', hostname: 'node1.example.com' }] } },
    });
    const waiting = await settle(key, 3);
    expect(waiting?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'WaitingForBootstrapData' });
    expect(await store.get('ZGuest', key)).toBeUndefined();

    await store.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'm1-bootstrap', namespace: ns }, data: { value: ignition.toString('base64'), format: Buffer.from('ignition').toString('base64') } } as unknown as Resource);
    await store.patch('Machine', { namespace: ns, name: 'm1' }, { spec: { bootstrap: { dataSecretName: 'm1-bootstrap' } } });
    const zm = await settle(key);
    const guest = await store.get<ZGuest>('ZGuest', key);
    const userid = guest!.spec.userid;
    expect(zm?.spec).toMatchObject({ host: 'zvm1', providerID: `zvm://zvm1/${userid}` });
    expect(zm?.status).toMatchObject({
      initialization: { provisioned: true }, phase: 'Provisioned', failureDomain: 'zvm1', userid,
      addresses: [{ type: 'Hostname', address: key.name }, { type: 'Hostname', address: 'node1.example.com' }, { type: 'InternalIP', address: '192.0.2.21' }],
    });
    expect(guest?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ZVMMachine', name: key.name, controller: true })]);
    expect(guest?.metadata.annotations?.[BOOTSTRAP_PUNCHED_ANNOTATION]).toMatch(/^[0-9a-f]{64}$/);
    expect(await hv.queryPowerState(userid)).toBe('on');
    const files = sim.readerFiles(userid);
    expect(files.map((f) => [f.name, f.fileType])).toEqual([['config', 'ign']]);
    expect(Buffer.from(files[0]!.data!, 'base64').equals(ignition)).toBe(true);
    expect(events.events.map((e) => e.reason)).toEqual(expect.arrayContaining(['GuestCreated', 'BootstrapDataPunched', 'GuestStarted']));
    expect(JSON.stringify(events.events)).not.toContain('secret-token');
  });

  it('rebuilds the same status from spec and guest when status is lost (clusterctl move copies no status), with no second punch', async () => {
    const before = await store.get<ZVMMachine>('ZVMMachine', key);
    await store.updateStatus({ ...before!, status: {} });
    const rebuilt = await settle(key);
    expect(rebuilt?.status).toMatchObject({ initialization: { provisioned: true }, userid: before?.status?.userid, failureDomain: 'zvm1' });
    expect(sim.readerFiles(before!.status!.userid!)).toHaveLength(1);
  });

  it('does nothing while the Cluster is paused', async () => {
    await store.patch('Cluster', { namespace: ns, name: 'c1' }, { spec: { paused: true } });
    await store.patch('ZGuest', key, { spec: { vcpus: 1 } });
    const zm = await settle(key, 2);
    expect(zm?.status?.conditions?.find((c) => c.type === 'Paused')).toMatchObject({ status: 'True' });
    await store.patch('Cluster', { namespace: ns, name: 'c1' }, { spec: { paused: false } });
  });

  it('deletes its guest, and the guest\'s reader with it, before letting go', async () => {
    const userid = (await store.get<ZVMMachine>('ZVMMachine', key))!.status!.userid!;
    await store.delete('ZVMMachine', key);
    for (let i = 0; i < 40 && (await store.get('ZVMMachine', key)); i++) {
      await machines.reconcile(key, signal);
      if (await store.get('ZGuest', key)) await guests.reconcile(key, signal);
    }
    expect(await store.get('ZVMMachine', key)).toBeUndefined();
    expect(await store.get('ZGuest', key)).toBeUndefined();
    expect(sim.queryUser(userid)).toBeFalsy();
    expect(sim.readerFiles(userid)).toEqual([]);
  });
});
