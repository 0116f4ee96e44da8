/**
 * Guest classes and pools in standalone mode, end to end on the simulated host: images imported over
 * the REST interface, a class and a pool applied with the compiled CLI, guests created, deployed and
 * started by the ZGuest controller, scaled, rolled to a new image and stopped by a failing one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { POOL_LABEL, type ZGuest, type ZGuestPool } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { runZvm } from '../../builders/zvm.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

const POOL_TEST_TIMEOUT_MS = 240_000;
const POOL = { namespace: 'default', name: 'web' };

const manifests = `apiVersion: zvm.dev/v1beta1
kind: ZGuestClass
metadata:
  name: web-small
spec:
  vcpus: 2
  memory: 1G
  maxMemory: 4G
  osVersion: rhel9.2
  disks:
    - size: 1G
      boot: true
    - size: 256M
      format: xfs
---
apiVersion: zvm.dev/v1beta1
kind: ZGuestPool
metadata:
  name: web
spec:
  replicas: 5
  useridPrefix: WEB
  maxUnavailable: 1
  template:
    spec:
      class: web-small
      image: web-v1
      powerState: Running
`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not reached in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const isReady = (g: ZGuest) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

async function poolGuests(app: Standalone): Promise<ZGuest[]> {
  return (await app.store.list<ZGuest>('ZGuest', { namespace: 'default', labelSelector: { [POOL_LABEL]: 'web' } })).items;
}

/** The pool at `replicas`, all Ready and from the current template; with its guests. */
async function settledPool(app: Standalone, replicas: number): Promise<{ pool: ZGuestPool; guests: ZGuest[] }> {
  return waitFor(`pool at ${replicas} Ready`, async () => {
    const pool = await app.store.get<ZGuestPool>('ZGuestPool', POOL);
    const guests = await poolGuests(app);
    const s = pool?.status;
    const done = pool && s?.observedGeneration === pool.metadata.generation && s?.readyReplicas === replicas && s?.updatedReplicas === replicas && guests.length === replicas && guests.every(isReady);
    return done ? { pool, guests } : undefined;
  });
}

async function importImages(app: Standalone, dir: string): Promise<void> {
  const files = join(dir, 'files');
  mkdirSync(files, { recursive: true });
  // web-huge says it needs a disk far larger than the class's root disk: its deploy fails on the host
  for (const [name, fill, units] of [['web-v1', 1, '100:CYL'], ['web-v2', 2, '100:CYL'], ['web-huge', 3, '900000:CYL']] as const) {
    const bytes = Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: units, compressLevel: 0 }), Buffer.alloc(50_000, fill)]);
    writeFileSync(join(files, `${name}.img`), bytes);
    const md5sum = createHash('md5').update(bytes).digest('hex');
    const res = await http(app.restUrl, 'POST', '/images', { image: { image_name: name, url: `file://${files}/${name}.img`, image_meta: { os_version: 'rhel9.2', md5sum } } });
    expect(res.status).toBe(200);
  }
}

describe('standalone: a pool of guests from a class and an image', () => {
  const state = tempStateDir();
  let app: Standalone;

  beforeAll(async () => {
    app = await startTestStandalone(state.dir);
    await importImages(app, state.dir);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });

  it('brings up 5 guests from the class and the image, each with its own userid', async () => {
    const file = join(state.dir, 'pool.yaml');
    writeFileSync(file, manifests);
    const applied = await runZvm(['apply', '-f', file, '--server', app.adminUrl], { timeoutMs: 60_000 });
    expect(applied.stdout).toContain('zguestclass.zvm.dev/web-small created');
    expect(applied.stdout).toContain('zguestpool.zvm.dev/web created');

    const { pool, guests } = await settledPool(app, 5);
    expect(guests.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002', 'WEB00003', 'WEB00004', 'WEB00005']);
    expect(pool.status).toMatchObject({ replicas: 5, readyReplicas: 5, updatedReplicas: 5, lastIndex: 5, phase: 'Ready', classRevision: 1 });
    const host = app.hosts.forHost('default')!;
    for (const g of guests) {
      expect(g.status).toMatchObject({ deployedImage: 'web-v1', powerState: 'on', class: { name: 'web-small', revision: 1 } });
      expect((await host.describeGuest(g.spec.userid))?.directory).toMatchObject({ cpus: 2, memory: '1G' });
    }
    const listed = await runZvm(['get', 'zgpool', '--server', app.adminUrl], { timeoutMs: 60_000 });
    expect(listed.stdout).toMatch(/NAME\s+READY\s+UPDATED\s+REPLICAS/);
    expect(listed.stdout).toMatch(/web\s+5\s+5\s+5\s+web-small\s+web-v1/);
  }, POOL_TEST_TIMEOUT_MS);

  it('scales 5 → 8 → 2; the guests that go leave the host', async () => {
    await app.store.patch('ZGuestPool', POOL, { spec: { replicas: 8 } });
    const up = await settledPool(app, 8);
    expect(new Set(up.guests.map((g) => g.spec.userid)).size).toBe(8);
    await app.store.patch('ZGuestPool', POOL, { spec: { replicas: 2 } });
    const down = await settledPool(app, 2);
    // all were Ready: the newest went
    expect(down.guests.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002']);
    const host = app.hosts.forHost('default')!;
    await waitFor('scaled-down guests gone from the host', async () => ((await host.describeGuest('WEB00008')) === undefined ? true : undefined));
    await app.store.patch('ZGuestPool', POOL, { spec: { replicas: 5 } });
    const back = await settledPool(app, 5);
    // counter values are never handed out twice: the new guests come after WEB00008
    expect(back.guests.map((g) => g.spec.userid).sort()).toEqual(['WEB00001', 'WEB00002', 'WEB00009', 'WEB00010', 'WEB00011']);
  }, POOL_TEST_TIMEOUT_MS);

  it('leaves existing guests alone when the class is edited', async () => {
    await app.store.patch('ZGuestClass', { name: 'web-small' }, { spec: { vcpus: 4 } });
    // a reconcile of each guest after the edit: the pool's recorded revision and the guests' stay at 1
    await new Promise((r) => setTimeout(r, 1000));
    const host = app.hosts.forHost('default')!;
    for (const g of await poolGuests(app)) {
      expect(g.status?.class?.revision).toBe(1);
      expect((await host.describeGuest(g.spec.userid))?.directory.cpus).toBe(2);
    }
  }, POOL_TEST_TIMEOUT_MS);

  it('rolls to a new image with maxUnavailable 1, never fewer than 4 Ready', async () => {
    await app.store.patch('ZGuestPool', POOL, { spec: { template: { spec: { image: 'web-v2' } } } });
    let fewest = 5;
    const rolled = await waitFor('rolled to web-v2', async () => {
      const guests = (await poolGuests(app)).filter((g) => !g.metadata.deletionTimestamp);
      fewest = Math.min(fewest, guests.filter(isReady).length);
      const done = guests.length === 5 && guests.every((g) => isReady(g) && g.status?.deployedImage === 'web-v2');
      return done ? guests : undefined;
    });
    expect(fewest).toBeGreaterThanOrEqual(4);
    expect(rolled.every((g) => g.spec.image === 'web-v2')).toBe(true);
    // made after the class edit, the new guests still take the revision the pool recorded
    const host = app.hosts.forHost('default')!;
    for (const g of rolled) {
      expect(g.status?.class?.revision).toBe(1);
      expect((await host.describeGuest(g.spec.userid))?.directory.cpus).toBe(2);
    }
    await settledPool(app, 5);
  }, POOL_TEST_TIMEOUT_MS);

  it('stops the rollout at a new guest whose image fails to deploy, keeping the other 4 Ready', async () => {
    await app.store.patch('ZGuestPool', POOL, { spec: { template: { spec: { image: 'web-huge' } } } });
    const pool = await waitFor('rollout stalled', async () => {
      const p = await app.store.get<ZGuestPool>('ZGuestPool', POOL);
      return p?.status?.phase === 'Stalled' ? p : undefined;
    });
    expect(pool.status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'False', reason: 'RolloutStalled' });
    const guests = (await poolGuests(app)).filter((g) => !g.metadata.deletionTimestamp);
    expect(guests.filter((g) => g.spec.image === 'web-v2' && isReady(g))).toHaveLength(4);
    expect(guests.filter((g) => g.spec.image === 'web-huge').map((g) => g.status?.phase)).toEqual(['Failed']);
  }, POOL_TEST_TIMEOUT_MS);

  it('takes its guests along when deleted', async () => {
    await app.store.delete('ZGuestPool', POOL);
    await waitFor('pool and guests gone', async () => ((await poolGuests(app)).length === 0 && !(await app.store.get('ZGuestPool', POOL)) ? true : undefined));
    const host = app.hosts.forHost('default')!;
    expect(await host.describeGuest('WEB00001')).toBeUndefined();
  }, POOL_TEST_TIMEOUT_MS);
});

describe('standalone: pool userids never collide, also across a restart mid-scale', () => {
  const state = tempStateDir();
  let app: Standalone | undefined;

  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });

  it('skips a userid already on the host or in the store, and hands out no value twice after a restart', async () => {
    app = await startTestStandalone(state.dir);
    // APP00003 exists on the host behind the operator's back; APP00004 is another ZGuest's
    await app.hosts.forHost('default')!.createGuest({ userid: 'APP00003', vcpus: 1, maxCpus: 2, memory: '512M', maxMemory: '1G' });
    await app.store.create<ZGuest>({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'hand-made', namespace: 'default' }, spec: { userid: 'APP00004', vcpus: 1, memory: '512M' } });
    await app.store.create<ZGuestPool>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'app', namespace: 'default' },
      spec: { replicas: 6, useridPrefix: 'APP', template: { spec: { vcpus: 1, memory: '512M' } } },
    });
    const running = app;
    // stop mid-scale: some guests written, the rest not yet
    await waitFor('first pool guests', async () => ((await running.store.list('ZGuest', { namespace: 'default', labelSelector: { [POOL_LABEL]: 'app' } })).items.length >= 2 ? true : undefined));
    await running.stop();
    app = await startTestStandalone(state.dir);
    const restarted = app;

    const guests = await waitFor('pool of 6 Ready after the restart', async () => {
      const items = (await restarted.store.list<ZGuest>('ZGuest', { namespace: 'default', labelSelector: { [POOL_LABEL]: 'app' } })).items;
      const live = items.filter((g) => !g.metadata.deletionTimestamp);
      return live.length === 6 && live.every(isReady) && items.length === 6 ? live : undefined;
    });
    const userids = guests.map((g) => g.spec.userid).sort();
    expect(new Set(userids).size).toBe(6);
    expect(userids).not.toContain('APP00003');
    expect(userids).not.toContain('APP00004');
    // the guest found on the host is left there, not taken over
    expect(await restarted.hosts.forHost('default')!.describeGuest('APP00003')).toBeDefined();
    const pool = await restarted.store.get<ZGuestPool>('ZGuestPool', { namespace: 'default', name: 'app' });
    expect(pool?.status?.lastIndex).toBeGreaterThanOrEqual(Math.max(...userids.map((u) => Number(u.slice(3)))));
  }, POOL_TEST_TIMEOUT_MS);
});
