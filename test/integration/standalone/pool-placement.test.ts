/**
 * Pool placement over real hosts in standalone mode: a built-in simulated host with 1 TB and a second
 * simulator with 8 GB served over SMAPI on loopback (as `zvm-operator sim` serves one). A pool picks
 * both by a label selector; guests spread fewest first until the small host has no room left, and a
 * template no host can take is reported in the pool's condition instead of being created.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, POOL_LABEL, type ZGuest, type ZGuestPool, type ZHost } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiServer, type SmapiServer } from '../../../src/hypervisor/smapi/index.js';
import { startTestStandalone, tempStateDir, waitFor } from './helpers.js';

const TEST_TIMEOUT_MS = 120_000;

const pool = (name: string, replicas: number, memory: string): ZGuestPool => ({
  apiVersion: API_VERSION, kind: 'ZGuestPool', metadata: { name, namespace: 'default' },
  spec: { replicas, useridPrefix: name.toUpperCase().slice(0, 4), hostSelector: { matchLabels: { zone: 'test' } }, template: { spec: { vcpus: 2, memory, maxMemory: memory } } },
});

describe('standalone: pool placement by host capacity and a host selector', () => {
  const state = tempStateDir();
  let app: Standalone;
  let server: SmapiServer;

  beforeAll(async () => {
    server = await createSmapiServer({ handler: createSimHost({ host: { memoryGB: 8, cpus: 4 } }), auth: { userid: 'MAINT', password: 'small-pw' }, host: '127.0.0.1', port: 0 });
    const secret = join(state.dir, 'secrets', 'small-smapi');
    mkdirSync(secret, { recursive: true });
    writeFileSync(join(secret, 'userid'), 'MAINT\n');
    writeFileSync(join(secret, 'password'), 'small-pw\n');
    app = await startTestStandalone(state.dir);
    const hosts: ZHost[] = [
      { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'lab', labels: { zone: 'test' } }, spec: { simulated: true } },
      { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'small', labels: { zone: 'test' } }, spec: { smapi: { host: '127.0.0.1', port: server.port, credentialsSecret: 'small-smapi' } } },
    ];
    for (const h of hosts) await app.store.create(h);
    // placement weighs what the facts say: wait until both hosts' facts are read
    await waitFor(async () => {
      const read = await Promise.all(['lab', 'small'].map(async (n) => (await app.store.get<ZHost>('ZHost', { name: n }))?.status?.info?.memory_mb));
      return read.every((m) => typeof m === 'number') ? read : undefined;
    }, 60_000);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await server?.close();
    state.cleanup();
  });

  const guestsOf = async (name: string) => (await app.store.list<ZGuest>('ZGuest', { namespace: 'default', labelSelector: { [POOL_LABEL]: name } })).items;

  it('spreads fewest first over the selected hosts and skips the small one once it is full', async () => {
    expect((await app.store.get<ZHost>('ZHost', { name: 'small' }))?.status?.info).toMatchObject({ memory_mb: 8192, vcpus: 4 });
    await app.store.create(pool('web', 6, '3G'));
    const guests = await waitFor(async () => {
      const gs = await guestsOf('web');
      return gs.length === 6 && gs.every((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? gs : undefined;
    }, 60_000);
    const on = (host: string) => guests.filter((g) => g.spec.host === host).map((g) => g.spec.userid).sort();
    // lab, small, lab, small; then small (6 GB of 8 committed) cannot take 3 GB more
    expect(on('small')).toEqual(['WEB00002', 'WEB00004']);
    expect(on('lab')).toEqual(['WEB00001', 'WEB00003', 'WEB00005', 'WEB00006']);
    expect(on('default')).toEqual([]);
    const p = await app.store.get<ZGuestPool>('ZGuestPool', { namespace: 'default', name: 'web' });
    expect(p?.status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'True' });
  }, TEST_TIMEOUT_MS);

  it('creates nothing when no host can take a guest of the template\'s size, and says so', async () => {
    await app.store.create(pool('huge', 1, '2000G'));
    const synced = await waitFor(async () => {
      const p = await app.store.get<ZGuestPool>('ZGuestPool', { namespace: 'default', name: 'huge' });
      const c = p?.status?.conditions?.find((x) => x.type === 'Synced');
      return c?.status === 'False' ? { phase: p?.status?.phase, ...c } : undefined;
    }, 60_000);
    expect(synced).toMatchObject({ phase: 'Stalled', reason: 'NoCapacity' });
    expect(synced.message).toMatch(/^no host can take another guest of 2 CPUs and 2048000 MB: lab \(\d+ CPUs, 12288 of 1048576 MB committed\), small \(4 CPUs, 6144 of 8192 MB committed\)$/);
    expect(await guestsOf('huge')).toEqual([]);
  }, TEST_TIMEOUT_MS);
});
