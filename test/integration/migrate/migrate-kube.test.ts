/**
 * `migrate feilong --apply --kubeconfig` against a real etcd + kube-apiserver with the project's CRDs,
 * the live directory read over the SMAPI wire (--smapi) from a simulated host in the state the sample
 * databases describe: resources are created, the ledger and image records land through the status
 * subresource, and a second run changes nothing (same resourceVersions).
 * Without the kube toolchain (test/kube/toolchain.sh) the test fails saying how to build it.
 */
import { join } from 'node:path';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiServer, type SmapiServer } from '../../../src/hypervisor/smapi/index.js';
import { migrateFeilong, type MigrateOptions } from '../../../src/cmd/migrate.js';
import { silentLogger } from '../../../src/log.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { startOperatorEnv, type OperatorEnv } from '../../e2e/operator/helpers.js';
import { tempStateDir } from '../standalone/helpers.js';
import { guestsOnHost, SAMPLE_DB_DIR, sampleFcpConfig, seedSampleHost } from './seed-host.js';

const NS = 'zvm-migrated';
const auth = { userid: 'MAINT', password: 'MIGRATE1' };

let kube: OperatorEnv | undefined;
let smapi: SmapiServer | undefined;
const state = tempStateDir();

beforeAll(async () => {
  await seedSampleHost(join(state.dir, 'sim.json'));
  smapi = await createSmapiServer({ handler: createSimHost({ ...sampleFcpConfig(), statePath: join(state.dir, 'sim.json') }), auth, host: '127.0.0.1', port: 0 });
  kube = await startOperatorEnv(NS);
}, 300_000);

afterAll(async () => {
  await smapi?.close();
  await kube?.env.stop();
  state.cleanup();
}, 60_000);

async function runOnCluster(): Promise<{ exitCode: number; summary: string }> {
  process.env.ZVM_SMAPI_USERID = auth.userid;
  process.env.ZVM_SMAPI_PASSWORD = auth.password;
  const o: MigrateOptions = {
    dbDir: SAMPLE_DB_DIR, host: 'default', namespace: NS, apply: true, kubeconfig: kube!.kubeconfig,
    smapi: `127.0.0.1:${smapi!.port}`, imageRepository: '/var/lib/zvmsdk/images', rootVdev: '0100',
  };
  return migrateFeilong(o, silentLogger());
}

const get = async (what: string, ns?: string) =>
  JSON.parse(await kubectlOk(['get', what, '-o', 'json', ...(ns ? ['-n', ns] : [])], { kubeconfig: kube!.kubeconfig })) as { items: { metadata: { name: string; resourceVersion: string }; spec: Record<string, unknown>; status?: Record<string, unknown> }[] };

it('applies to a cluster with status through the status subresource, and a second run changes nothing', async () => {
  const first = await runOnCluster();
  expect(first.exitCode).toBe(0);
  const guests = await get('zguests', NS);
  expect(guests.items.map((g) => g.spec.userid).sort()).toEqual(guestsOnHost().sort());
  const templates = await get('zfcptemplates');
  const general = templates.items.find((t) => t.spec.name === 'general-2path');
  expect((general?.status?.fcps as { fcp: string; assignerId: string; connections: number }[]).find((r) => r.fcp === '1a00')).toMatchObject({ assignerId: 'LNX00004', connections: 2 });
  const images = await get('zimages');
  expect(images.items).toHaveLength(6);
  for (const i of images.items) expect(i.status).toMatchObject({ phase: 'Ready', observedGeneration: 1 });

  const versions = async () => [...(await get('zguests', NS)).items, ...(await get('zfcptemplates')).items, ...(await get('zimages')).items].map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
  const before = await versions();
  const second = await runOnCluster();
  expect(second.exitCode).toBe(0);
  expect(second.summary).not.toMatch(/^ {2}(create|resume|CONFLICT) /m);
  expect(await versions()).toEqual(before);
}, 240_000);
