/**
 * The ZImage reconciler over the embedded store, the simulator and its SSH management guest:
 * finalizer first, import once, adopt its own image after a crash, terminal failures settle,
 * delete removes the repository folder but never an image someone else made.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, type ZImage } from '../../../src/api/index.js';
import { createZImageReconciler } from '../../../src/controllers/index.js';
import type { MgmtOps } from '../../../src/hypervisor/image-port.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createMgmtOps } from '../../../src/hypervisor/mgmt/index.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../../src/hypervisor/sim/ssh/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../../../src/log.js';
import type { Reconciler } from '../../../src/runtime/result.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import type { StateStore } from '../../../src/store/port.js';
import { recordingEvents } from '../../builders/controller-harness.js';
import { imageBytes, tempDir, writeImage } from '../../wire/mgmt-helpers.js';

const tmp = tempDir('zvm-zimage-');
const local = join(tmp.dir, 'local');
let sim: SimHost;
let ssh: SimSshServer;
let mgmt: MgmtOps;
let hv: Hypervisor;
let store: StateStore;
let reconciler: Reconciler;
const signal = new AbortController().signal;

beforeAll(async () => {
  mkdirSync(local, { recursive: true });
  sim = createSimHost();
  ssh = await startSimSshServer({ sim, dataDir: join(tmp.dir, 'mgmt'), username: 'zcc', password: 'pw' });
  mgmt = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: ssh.hostKeySha256 }, allowedDirs: [local] });
  hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }), mgmt });
  store = createEmbeddedStore();
  reconciler = createZImageReconciler({ store, hypervisors: { forHost: (h) => (h === 'default' ? hv : undefined) }, events: recordingEvents(), log: silentLogger() });
  writeImage(join(local, 'a.img'), imageBytes());
});

afterAll(async () => {
  await hv.close();
  await ssh.close();
  await sim.close();
  tmp.cleanup();
});

async function settle(name: string, runs = 5): Promise<ZImage | undefined> {
  for (let i = 0; i < runs; i++) {
    const r = await reconciler.reconcile({ name }, signal);
    if (!r || !('requeueAfterMs' in r) || (r as { requeueAfterMs?: number }).requeueAfterMs !== 1) break;
  }
  return store.get<ZImage>('ZImage', { name });
}

const anImage = (name: string, url: string, imageName?: string): ZImage => ({
  apiVersion: API_VERSION, kind: 'ZImage', metadata: { name },
  spec: { ...(imageName ? { imageName } : {}), source: { import: { url, osVersion: 'rhel9' } } },
});

describe('ZImage reconciler', () => {
  it('puts the finalizer on first, imports once, and reports Ready with the record', async () => {
    await store.create(anImage('img1', `file://${local}/a.img`));
    const img = await settle('img1');
    expect(img?.metadata.finalizers).toContain('zvm.dev/image-protection');
    expect(img?.status).toMatchObject({ phase: 'Ready', imageName: 'img1', osVersion: 'rhel9', diskSizeUnits: '100:CYL', type: 'rootonly' });
    expect(img?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Imported' });
    // the transfer's last progress sample stays in status: every byte of the file, with the rate
    const size = statSync(join(local, 'a.img')).size;
    expect(img?.status?.progress).toMatchObject({ bytesDone: size, summary: expect.stringMatching(/ at .+\/s$/) });
    const before = await mgmt.describeImage('img1');
    await reconciler.reconcile({ name: 'img1' }, signal);
    expect((await mgmt.describeImage('img1'))?.lastAccessTime).toBe(before?.lastAccessTime);
  });

  it('adopts its own image when a crash came between the import and the status write', async () => {
    const created = await store.create(anImage('img2', `file://${local}/a.img`));
    await mgmt.importImage({ name: 'img2', url: `file://${local}/a.img`, osVersion: 'rhel9', owner: created.metadata.uid });
    const img = await settle('img2');
    expect(img?.status).toMatchObject({ phase: 'Ready', md5sum: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('records a terminal failure with feilong fields and does not retry it', async () => {
    await mgmt.importImage({ name: 'taken', url: `file://${local}/a.img`, osVersion: 'rhel9' });
    await store.create(anImage('img3', `file://${local}/a.img`, 'taken'));
    const img = await settle('img3');
    expect(img?.status).toMatchObject({ phase: 'Failed', lastError: { overallRC: 300, modID: 40, rc: 300, rs: 13 } });
    const outside = await store.create(anImage('img4', 'file:///etc/hostname'));
    expect((await settle(outside.metadata.name))?.status).toMatchObject({ phase: 'Failed', lastError: { overallRC: 100, rs: 3 } });
  });

  it('removes its repository folder on delete, but leaves an image it did not make', async () => {
    await store.delete('ZImage', { name: 'img1' });
    await settle('img1');
    expect(await store.get('ZImage', { name: 'img1' })).toBeUndefined();
    expect(await mgmt.describeImage('img1')).toBeUndefined();
    await store.delete('ZImage', { name: 'img3' });
    await settle('img3');
    expect(await store.get('ZImage', { name: 'img3' })).toBeUndefined();
    expect(await mgmt.describeImage('taken')).toBeDefined();
  });
});
