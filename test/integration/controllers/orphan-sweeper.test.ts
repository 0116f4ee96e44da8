/**
 * The orphan sweeper against the simulated host (in-process, behind the SMAPI adapter) and the
 * embedded store: a guest planted with our owner mark and no ZGuest is reported at the first look
 * (one resync period), deleted with its disks only under orphanPolicy Delete once the grace period
 * is over, and a guest without our mark is never touched. Then the same through the running operator.
 */
import { jest } from '@jest/globals';
import { Registry } from 'prom-client';
import { API_VERSION, type ZGuest, type ZHost } from '../../../src/api/index.js';
import { createOperator } from '../../../src/cmd/operator.js';
import { createFactBoard, createOrphanSweeper, OrphanEventReasons, type FactBoard } from '../../../src/controllers/index.js';
import { ownerComment } from '../../../src/controllers/zguest/ownership.js';
import { createHostRegistry } from '../../../src/hypervisor/host-registry.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../../../src/log.js';
import { createManager, createMemoryEventRecorder, type MemoryEventRecorder } from '../../../src/runtime/index.js';
import { createEmbeddedStore, type StateStore } from '../../../src/store/index.js';

jest.setTimeout(60_000);

const signal = new AbortController().signal;
const HOST = 'default';
const DEAD_UID = '0b7c9d1e-dead-4c1a-9a7e-000000000001';

interface World {
  sim: SimHost;
  hv: Hypervisor;
  store: StateStore;
  events: MemoryEventRecorder;
  registry: Registry;
  /** what the sweeper records for the ZHost reconciler (it writes no status itself) */
  facts: FactBoard;
}

function aWorld(): World {
  const sim = createSimHost();
  const hv = createSmapiHypervisor({ hostName: HOST, caller: createInProcessCaller({ handler: sim }) });
  return { sim, hv, store: createEmbeddedStore(), events: createMemoryEventRecorder(), registry: new Registry(), facts: createFactBoard() };
}

async function aZHost(store: StateStore, spec: Partial<ZHost['spec']> = {}): Promise<ZHost> {
  return store.create<ZHost>({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: HOST }, spec: { simulated: true, ...spec } });
}

/** A guest defined straight on the host, with a 1G disk, carrying the given directory comments. */
async function plant(hv: Hypervisor, userid: string, comments: string[]): Promise<void> {
  await hv.createGuest({ userid, vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G', comments });
  await hv.addDisk(userid, { vdev: '0100', size: '1G', pool: 'ECKD:POOL1' });
}

async function gauge(registry: Registry): Promise<number | undefined> {
  const metric = await registry.getSingleMetric('zvm_orphaned_guests')?.get();
  return metric?.values.find((v) => v.labels.host === HOST)?.value;
}

/** The orphans the sweeper recorded (a fact: the ZHost reconciler writes them into status.orphanedGuests). */
function orphansOf(w: World): string[] | undefined {
  return w.facts.host(HOST).orphanedGuests?.map((o) => `${o.userid} ${o.ownerUid}`);
}

async function orphansInStatus(store: StateStore): Promise<string[] | undefined> {
  return (await store.get<ZHost>('ZHost', { name: HOST }))?.status?.orphanedGuests?.map((o) => `${o.userid} ${o.ownerUid}`);
}

const reasons = (events: MemoryEventRecorder) => events.all().filter((e) => e.involvedObject.kind === 'ZHost').map((e) => `${e.type} ${e.reason}`);

describe('orphan sweeper, one look at a time', () => {
  let now: Date;
  let w: World;
  const sweeperOf = (world: World, guests: ZGuest[] = []) => createOrphanSweeper({
    store: world.store, hosts: { forHost: () => world.hv }, guests: { list: () => guests }, events: world.events, registry: world.registry, clock: () => now, facts: world.facts,
  });
  const look = async (hv: Hypervisor) => ({ active: await hv.queryActiveGuests(), directory: await hv.listDirectory() });

  beforeEach(async () => {
    now = new Date('2026-11-23T12:00:00Z');
    w = aWorld();
    await plant(w.hv, 'ORPHAN1', [ownerComment(DEAD_UID)]);
    await plant(w.hv, 'STRANGER', ['SOMEBODY ELSES GUEST']);
  });

  it('reports a guest with our mark and no ZGuest at the first look, and keeps it under orphanPolicy Report', async () => {
    await aZHost(w.store);
    const sweeper = sweeperOf(w);
    await sweeper.observe(HOST, await look(w.hv), signal);

    expect(orphansOf(w)).toEqual([`ORPHAN1 ${DEAD_UID.toUpperCase()}`]);
    expect(await gauge(w.registry)).toBe(1);
    expect(reasons(w.events)).toEqual([`Warning ${OrphanEventReasons.found}`]);
    expect(w.events.all()[0]!.message).toMatch(/ORPHAN1 carries the owner mark .* orphanPolicy Report keeps it/);

    now = new Date(now.getTime() + 30 * 86_400_000);
    await sweeper.observe(HOST, await look(w.hv), signal);
    expect(await w.hv.describeGuest('ORPHAN1')).toBeDefined();
    expect(await w.hv.describeGuest('STRANGER')).toBeDefined();
    expect(reasons(w.events)).toEqual([`Warning ${OrphanEventReasons.found}`]); // reported once, not every look
  });

  it('deletes it with its disks under orphanPolicy Delete only once the grace period is over, never the unmarked guest', async () => {
    await aZHost(w.store, { orphanPolicy: 'Delete', orphanGracePeriodSeconds: 600 });
    const used = () => w.sim.stats().pools.find((p) => p.name === 'POOL1')!.usedUnits;
    const usedWithOrphan = used();
    const sweeper = sweeperOf(w);
    await sweeper.observe(HOST, await look(w.hv), signal);
    now = new Date(now.getTime() + 599_000);
    await sweeper.observe(HOST, await look(w.hv), signal);
    expect(await w.hv.describeGuest('ORPHAN1')).toBeDefined();

    now = new Date(now.getTime() + 1_000);
    await sweeper.observe(HOST, await look(w.hv), signal);
    expect(await w.hv.describeGuest('ORPHAN1')).toBeUndefined();
    expect(used()).toBeLessThan(usedWithOrphan); // its minidisk went back to the pool
    expect(await w.hv.describeGuest('STRANGER')).toBeDefined();
    expect(orphansOf(w)).toEqual([]);
    expect(await gauge(w.registry)).toBe(0);
    expect(reasons(w.events)).toEqual([`Warning ${OrphanEventReasons.found}`, `Normal ${OrphanEventReasons.deleted}`]);
  });

  it('leaves a marked guest alone while a ZGuest claims its userid or carries its uid', async () => {
    await aZHost(w.store, { orphanPolicy: 'Delete', orphanGracePeriodSeconds: 0 });
    const claimant = { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'orphan1', namespace: 'default', uid: 'other-uid' }, spec: { userid: 'ORPHAN1', host: HOST } } as unknown as ZGuest;
    await sweeperOf(w, [claimant]).observe(HOST, await look(w.hv), signal);
    const owner = { ...claimant, metadata: { ...claimant.metadata, uid: DEAD_UID }, spec: { userid: 'ELSEWHERE', host: 'other-host' } } as ZGuest;
    await sweeperOf(w, [owner]).observe(HOST, await look(w.hv), signal);
    expect(await w.hv.describeGuest('ORPHAN1')).toBeDefined();
    expect((orphansOf(w)) ?? []).toEqual([]);
    expect(reasons(w.events)).toEqual([]);
  });

  it('reads each unclaimed entry once and the directory at most once per scan interval', async () => {
    await aZHost(w.store);
    const sweeper = sweeperOf(w);
    await sweeper.observe(HOST, { active: await w.hv.queryActiveGuests() }, signal);
    expect(w.sim.callCounts()).toMatchObject({ Image_Name_Query_DM: 1 });
    w.sim.resetCallCounts();
    now = new Date(now.getTime() + 60_000);
    await sweeper.observe(HOST, { active: await w.hv.queryActiveGuests() }, signal);
    // no Image_Query_DM, no directory listing: the look's one batched query is all
    expect(Object.keys(w.sim.callCounts())).toEqual(['Image_Status_Query']);
  });
});

describe('orphan sweeper in the running operator', () => {
  it('reports a planted guest through the drift detector\'s periodic look and never touches the others', async () => {
    const w = aWorld();
    const hosts = createHostRegistry();
    hosts.register(HOST, w.hv);
    await aZHost(w.store, { orphanPolicy: 'Delete', orphanGracePeriodSeconds: 1 });
    const operator = createOperator({ store: w.store, hosts, events: w.events, registry: w.registry, log: silentLogger(), driftMs: 200, orphanScanMs: 200, pollMs: 50 });
    const manager = createManager({ runnables: operator.runnables });
    const running = manager.start();
    try {
      const managed = await w.store.create<ZGuest>({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'kept', namespace: 'default' }, spec: { userid: 'KEPT01', vcpus: 1, memory: '1G', powerState: 'Off' } });
      await until(async () => (await w.hv.describeGuest('KEPT01')) !== undefined);
      await plant(w.hv, 'ORPHAN1', [ownerComment(DEAD_UID)]);
      await plant(w.hv, 'STRANGER', ['SOMEBODY ELSES GUEST']);

      // the ZHost reconciler writes what the sweeper recorded, then the grace runs out
      await until(async () => (await orphansInStatus(w.store))?.includes(`ORPHAN1 ${DEAD_UID.toUpperCase()}`) ?? false);
      await until(async () => reasons(w.events).includes(`Normal ${OrphanEventReasons.deleted}`));
      await until(async () => (await orphansInStatus(w.store))?.length === 0);
      expect(await w.hv.describeGuest('ORPHAN1')).toBeUndefined();
      expect(await w.hv.describeGuest('STRANGER')).toBeDefined();
      expect(await w.hv.describeGuest('KEPT01')).toBeDefined();
      expect((await w.store.get<ZGuest>('ZGuest', managed.metadata))?.metadata.deletionTimestamp).toBeUndefined();
    } finally {
      await manager.stop();
      await running;
    }
  });
});

async function until(probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
