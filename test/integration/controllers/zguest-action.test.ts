/**
 * ZGuestAction (live migration) against the embedded store and the simulator behind the SMAPI
 * adapter: executed once, result in status, the ZGuest left alone after a move, TTL collection,
 * and a restart in the middle of a move.
 */
import { API_VERSION, RELOCATED_TO_ANNOTATION, type ZGuest, type ZGuestAction, type ZGuestActionSpec } from '../../../src/api/index.js';
import { createZGuestActionReconciler } from '../../../src/controllers/zguest-action/reconciler.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../../../src/log.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { aControllerHarness, recordingEvents, type Harness } from '../../builders/controller-harness.js';

interface World {
  h: Harness;
  hv: Hypervisor;
  now: { t: number };
  run(key: ObjectKey): Promise<{ requeueAfterMs?: number }>;
  guestKey: ObjectKey;
}

async function aWorld(power: 'On' | 'Off' = 'On'): Promise<World> {
  const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: createSimHost() }) });
  const h = aControllerHarness({ hosts: { default: hv } });
  const now = { t: Date.parse('2026-03-01T00:00:00Z') };
  const reconciler = createZGuestActionReconciler({ store: h.store, hypervisors: { forHost: (n) => (n === 'default' ? hv : undefined) }, events: recordingEvents(), log: silentLogger(), clock: () => new Date(now.t) });
  const guestKey = await h.createGuest({ powerState: power });
  await h.settle(guestKey);
  return { h, hv, now, guestKey, run: (key) => reconciler.reconcile(key, new AbortController().signal) };
}

async function anAction(w: World, spec: Partial<ZGuestActionSpec> = {}, name = 'mig1'): Promise<ObjectKey> {
  const obj: ZGuestAction = {
    apiVersion: API_VERSION,
    kind: 'ZGuestAction',
    metadata: { name, namespace: 'default' },
    spec: { guest: 'g1', action: 'LiveMigrate', liveMigrate: { destination: 'ZVMSIM2', operation: 'move' }, ...spec },
  };
  const created = await w.h.store.create(obj);
  return { namespace: 'default', name: created.metadata.name };
}

const actionOf = (w: World, key: ObjectKey) => w.h.store.get<ZGuestAction>('ZGuestAction', key);

describe('ZGuestAction controller: LiveMigrate on the simulator', () => {
  it('moves a running guest once, records Succeeded, and the ZGuest controller then leaves it alone', async () => {
    const w = await aWorld();
    const key = await anAction(w);
    const result = await w.run(key);
    const action = await actionOf(w, key);
    expect(action?.status).toMatchObject({ phase: 'Succeeded', userid: 'LINUX01', startedAt: '2026-03-01T00:00:00.000Z', completedAt: '2026-03-01T00:00:00.000Z' });
    expect(action?.status?.conditions?.find((c) => c.type === 'Complete')?.status).toBe('True');
    expect(result.requeueAfterMs).toBe(3600_000);
    expect(await w.hv.queryPowerState('LINUX01')).toBe('off');
    const guest = (await w.h.get(w.guestKey)) as ZGuest;
    expect(guest.metadata.annotations?.[RELOCATED_TO_ANNOTATION]).toBe('ZVMSIM2');
    // the ZGuest still asks for On, but the guest runs elsewhere now: no logon here
    await w.h.settle(w.guestKey);
    expect(await w.hv.queryPowerState('LINUX01')).toBe('off');
    const synced = (await w.h.get(w.guestKey))?.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced).toMatchObject({ status: 'False', reason: 'Relocated' });
    // executed once: a later reconcile does not move again
    await w.run(key);
    expect((await actionOf(w, key))?.status?.phase).toBe('Succeeded');
  });

  it('a test leaves the guest running here and unmarked', async () => {
    const w = await aWorld();
    const key = await anAction(w, { liveMigrate: { destination: 'zvmsim2', operation: 'test', parms: { maxTotal: 60, forceArch: true } } });
    await w.run(key);
    expect((await actionOf(w, key))?.status?.phase).toBe('Succeeded');
    expect(await w.hv.queryPowerState('LINUX01')).toBe('on');
    expect((await w.h.get(w.guestKey))?.metadata.annotations?.[RELOCATED_TO_ANNOTATION]).toBeUndefined();
  });

  it('fails with 409 rs1 when the guest is not logged on, and with the SMAPI error for an unknown member', async () => {
    const off = await aWorld('Off');
    const k1 = await anAction(off);
    await off.run(k1);
    expect((await actionOf(off, k1))?.status).toMatchObject({ phase: 'Failed', lastError: { overallRC: 409, rc: 409, rs: 1, modID: 10 } });

    const on = await aWorld();
    const k2 = await anAction(on, { liveMigrate: { destination: 'NOWHERE', operation: 'move' } });
    await on.run(k2);
    expect((await actionOf(on, k2))?.status).toMatchObject({ phase: 'Failed', lastError: { overallRC: 8, rc: 4, rs: 3000 } });
    expect(await on.hv.queryPowerState('LINUX01')).toBe('on');
    expect((await on.h.get(on.guestKey))?.metadata.annotations?.[RELOCATED_TO_ANNOTATION]).toBeUndefined();
  });

  it('fails when the ZGuest does not exist', async () => {
    const w = await aWorld();
    const key = await anAction(w, { guest: 'nope' });
    await w.run(key);
    expect((await actionOf(w, key))?.status).toMatchObject({ phase: 'Failed', lastError: { overallRC: 404 } });
  });

  it('after a restart in the middle of a move, reports Succeeded when the marked guest left this host', async () => {
    const w = await aWorld();
    const key = await anAction(w);
    // the state a crash right after VMRELOCATE MOVE leaves: Running, marker set, guest gone from here
    await w.h.store.patch('ZGuest', w.guestKey, { metadata: { annotations: { [RELOCATED_TO_ANNOTATION]: 'ZVMSIM2' } } });
    await w.hv.relocation!.relocate('LINUX01', { destination: 'ZVMSIM2' });
    const a = (await actionOf(w, key)) as ZGuestAction;
    await w.h.store.updateStatus({ ...a, status: { phase: 'Running', startedAt: '2026-03-01T00:00:00Z' } });
    await w.run(key);
    expect((await actionOf(w, key))?.status).toMatchObject({ phase: 'Succeeded', startedAt: '2026-03-01T00:00:00Z' });
  });

  it('is deleted once ttlSecondsAfterFinished has passed', async () => {
    const w = await aWorld();
    const key = await anAction(w, { ttlSecondsAfterFinished: 10 });
    expect((await w.run(key)).requeueAfterMs).toBe(10_000);
    w.now.t += 5_000;
    expect((await w.run(key)).requeueAfterMs).toBe(5_000);
    w.now.t += 5_000;
    expect(await w.run(key)).toEqual({});
    expect(await actionOf(w, key)).toBeUndefined();
  });
});
