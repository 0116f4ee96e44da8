/**
 * Guest classes and pools on a real kube-apiserver: the compiled controller (as the chart runs it)
 * against `zvm-operator sim` serving SMAPI and the management guest over SSH on loopback. Images are
 * imported as ZImages, a pool of 5 comes up from a class and an image, `kubectl scale` moves it 5 → 8
 * → 2, a new image rolls through with maxUnavailable 1 and a failing one stops the rollout.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { kubectlOk } from '../../kube/kubectl.js';
import {
  applyObjects, eventually, freePort, logNumber, spawnCli, startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv,
} from './helpers.js';

let o: OperatorEnv | undefined;
let sim: LoggedProcess | undefined;
let controller: LoggedProcess | undefined;
const POOL_BOUND_MS = 180_000;

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}

const isReady = (g: ZGuest) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const live = (gs: ZGuest[]) => gs.filter((g) => !g.metadata.deletionTimestamp);

async function listPoolGuests(): Promise<ZGuest[]> {
  const { kubeconfig, namespace } = env();
  return (JSON.parse(await kubectlOk(['get', '-n', namespace, 'zg', '-l', 'zvm.dev/pool=web', '-o', 'json'], { kubeconfig })) as { items: ZGuest[] }).items;
}

async function settled(replicas: number, image: string): Promise<ZGuest[]> {
  let guests: ZGuest[] = [];
  await eventually(`pool web at ${replicas} Ready guests with ${image}`, async () => {
    guests = await listPoolGuests();
    return guests.length === replicas && guests.every((g) => isReady(g) && g.status?.deployedImage === image);
  }, [controller!], POOL_BOUND_MS);
  return guests;
}

beforeAll(async () => {
  o = await startOperatorEnv();
  const images = join(o.env.tempDir, 'images');
  mkdirSync(images, { recursive: true });
  // web-huge says it needs a disk far larger than the class's root disk: its deploy fails on the host
  for (const [name, fill, units] of [['web-v1', 1, '100:CYL'], ['web-v2', 2, '100:CYL'], ['web-huge', 3, '900000:CYL']] as const) {
    writeFileSync(join(images, `${name}.img`), Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: units, compressLevel: 0 }), Buffer.alloc(20_000, fill)]));
  }
  const password = randomBytes(8).toString('hex');
  sim = spawnCli(o, 'sim', ['sim', '--port', '0', '--userid', 'MAINT', '--password', password, '--ssh-port', '0', '--ssh-password', password, '--ssh-dir', join(o.env.tempDir, 'mgmt')]);
  const port = await logNumber(sim, 'smapiPort');
  const sshPort = await logNumber(sim, 'sshPort');
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-mgmt' }, stringData: { password } },
    {
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' },
      spec: { smapi: { host: '127.0.0.1', port, credentialsSecret: 'sim-smapi' }, management: { host: '127.0.0.1', port: sshPort, user: 'zcc', keySecret: 'sim-mgmt', trustOnFirstUse: true } },
    },
  ]);
  const probePort = await freePort();
  controller = spawnCli(o, 'controller', [
    'controller', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace, '--image-dir', images,
    '--health-probe-bind-address', `127.0.0.1:${probePort}`, '--metrics-bind-address', '0',
  ]);
  await eventually('the controller to be ready', async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).ok, [controller]);
  await applyObjects(o, ['web-v1', 'web-v2', 'web-huge'].map((name) => ({
    apiVersion: 'zvm.dev/v1beta1', kind: 'ZImage', metadata: { name },
    spec: { source: { import: { url: `file://${images}/${name}.img`, osVersion: 'rhel9.2' } } },
  })));
  const { kubeconfig } = o;
  await kubectlOk(['wait', '--for=condition=Ready', 'zimage/web-v1', 'zimage/web-v2', 'zimage/web-huge', '--timeout=120s'], { kubeconfig, timeoutMs: 130_000 });
}, 300_000);

afterAll(async () => {
  if (controller) await stopProcess(controller);
  if (sim) await stopProcess(sim);
  await o?.env.stop();
}, 60_000);

describe('guest pools on a real apiserver', () => {
  it('brings up a pool of 5 from a class and an image; kubectl get shows READY/UPDATED/REPLICAS and the class', async () => {
    const { kubeconfig, namespace } = env();
    await applyObjects(env(), [
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: 'web-small' }, spec: { vcpus: 2, memory: '1G', disks: [{ size: '1G', boot: true }] } },
      {
        apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'web' },
        spec: { replicas: 5, useridPrefix: 'WEB', maxUnavailable: 1, template: { spec: { class: 'web-small', image: 'web-v1', powerState: 'Running' } } },
      },
    ]);
    const guests = await settled(5, 'web-v1');
    expect(guests.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002', 'WEB00003', 'WEB00004', 'WEB00005']);
    expect(guests.every((g) => g.metadata.ownerReferences?.[0]?.kind === 'ZGuestPool')).toBe(true);
    await eventually('the pool Ready', async () => (await kubectlOk(['get', '-n', namespace, 'zgpool/web', '-o', 'jsonpath={.status.readyReplicas}'], { kubeconfig })) === '5', [controller!]);
    const [header, row] = (await kubectlOk(['get', '-n', namespace, 'zgpool'], { kubeconfig })).trim().split('\n');
    expect(header).toMatch(/^NAME\s+READY\s+UPDATED\s+REPLICAS\s+CLASS\s+IMAGE\s+PHASE\s+AGE$/);
    expect(row).toMatch(/^web\s+5\s+5\s+5\s+web-small\s+web-v1\s+Ready\s+\S+$/);
    const [zgHeader] = (await kubectlOk(['get', '-n', namespace, 'zg'], { kubeconfig })).trim().split('\n');
    expect(zgHeader).toMatch(/\bCLASS\b/);
  }, 300_000);

  it('kubectl scale moves the pool 5 → 8 → 2', async () => {
    const { kubeconfig, namespace } = env();
    await kubectlOk(['scale', '-n', namespace, 'zgpool/web', '--replicas', '8'], { kubeconfig });
    expect(new Set((await settled(8, 'web-v1')).map((g) => g.spec.userid)).size).toBe(8);
    await kubectlOk(['scale', '-n', namespace, 'zgpool/web', '--replicas', '2'], { kubeconfig });
    const two = await settled(2, 'web-v1');
    expect(two.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002']);
    await kubectlOk(['scale', '-n', namespace, 'zgpool/web', '--replicas', '5'], { kubeconfig });
    const back = await settled(5, 'web-v1');
    expect(back.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002', 'WEB00009', 'WEB00010', 'WEB00011']);
  }, 400_000);

  it('a class edit changes no guest of the pool until it asks for the new revision', async () => {
    const { kubeconfig } = env();
    await kubectlOk(['patch', 'zgc/web-small', '--type=merge', '-p', '{"spec":{"vcpus":4}}'], { kubeconfig });
    await kubectlOk(['patch', '-n', env().namespace, 'zgpool/web', '--type=merge', '-p', '{"spec":{"template":{"spec":{"image":"web-v2"}}}}'], { kubeconfig });
    let fewest = 5;
    await eventually('rolled to web-v2', async () => {
      const guests = live(await listPoolGuests());
      fewest = Math.min(fewest, guests.filter(isReady).length);
      return guests.length === 5 && guests.every((g) => isReady(g) && g.status?.deployedImage === 'web-v2');
    }, [controller!], 400_000);
    // maxUnavailable 1: never fewer than 4 Ready; the new guests still took class revision 1
    expect(fewest).toBeGreaterThanOrEqual(4);
    expect((await listPoolGuests()).map((g) => g.status?.class?.revision)).toEqual([1, 1, 1, 1, 1]);
  }, 420_000);

  it('a failing image stops the rollout with RolloutStalled and keeps 4 guests Ready', async () => {
    const { kubeconfig, namespace } = env();
    await kubectlOk(['patch', '-n', namespace, 'zgpool/web', '--type=merge', '-p', '{"spec":{"template":{"spec":{"image":"web-huge"}}}}'], { kubeconfig });
    await eventually('RolloutStalled', async () => (await kubectlOk(['get', '-n', namespace, 'zgpool/web', '-o', 'jsonpath={.status.conditions[?(@.type=="Synced")].reason}'], { kubeconfig })) === 'RolloutStalled', [controller!], POOL_BOUND_MS);
    const guests = live(await listPoolGuests());
    expect(guests.filter((g) => g.spec.image === 'web-v2' && isReady(g))).toHaveLength(4);
    expect(guests.filter((g) => g.spec.image === 'web-huge').map((g) => g.status?.phase)).toEqual(['Failed']);
  }, 240_000);
});
