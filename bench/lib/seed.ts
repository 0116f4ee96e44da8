/**
 * Seeds N settled guests at once: defined and logged on in the simulator, and in the store with
 * the finalizer and the status the controller would have written (Ready, observedGeneration 1).
 * It talks to the simulator in-process and builds status with the controller's own pure functions,
 * so seeding 10 000 guests takes seconds instead of a fleet run.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { FINALIZER, type Resource, type ZGuest } from '../../src/api/index.js';
import { computeZGuestStatus, DEFAULT_GUEST_DEFAULTS, type ResolvedZGuest } from '../../src/controllers/index.js';
import { buildDefinition, resolveDisks, toDiskRequest } from '../../src/controllers/zguest/definition.js';
import { createInProcessCaller } from '../../src/hypervisor/smapi/in-process-caller.js';
import { createSimHost, type SimHost } from '../../src/hypervisor/sim/index.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../../src/log.js';
import { serializeState, writeStateFile } from '../../src/store/embedded/state-file.js';
import { createEmbeddedStore, type StateStore } from '../../src/store/index.js';
import { aBenchGuest, ensureDefaultHost } from './operator-world.js';

export const guestName = (i: number): string => `g${String(i).padStart(5, '0')}`;

/** Writes `store.json` into stateDir holding the seeded guests (plus the default ZHost). */
export async function seedSettledGuests(sim: SimHost, count: number, stateDir: string): Promise<void> {
  const store = createEmbeddedStore();
  await ensureDefaultHost(store);
  const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) });
  const now = new Date();
  for (let i = 0; i < count; i++) await settleGuest(store, hv, guestName(i), now);
  const objects = [...(await store.list('ZHost')).items, ...(await store.list('ZGuest')).items];
  const rv = Math.max(...objects.map((o) => Number(o.metadata.resourceVersion)));
  await writeStateFile(join(stateDir, 'store.json'), serializeState(rv, objects), silentLogger());
  await store.close();
}

async function settleGuest(store: StateStore, hv: Hypervisor, name: string, now: Date): Promise<ResolvedZGuest> {
  const guest = await store.create<ResolvedZGuest>({ ...aBenchGuest(name), metadata: { name, namespace: 'default', finalizers: [FINALIZER] } });
  await hv.createGuest(buildDefinition(guest, DEFAULT_GUEST_DEFAULTS));
  for (const d of resolveDisks(guest, DEFAULT_GUEST_DEFAULTS)) await hv.addDisk(guest.spec.userid, toDiskRequest(d));
  await hv.start(guest.spec.userid);
  const observed = await hv.describeGuest(guest.spec.userid);
  const status = computeZGuestStatus({
    guest, hostName: 'default', observed, plan: { steps: [], problems: [], ownership: 'owned' }, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now,
  });
  return store.updateStatus({ ...guest, status });
}

/**
 * Store-only seeding for large counts: one guest settled through the real path (simulator, controller
 * status functions), then `count` copies of it under their own names, userids and uids, written as
 * the JSON store's file. Nothing is defined in any simulator.
 */
export async function seedClonedGuests(count: number, stateDir: string): Promise<void> {
  const store = createEmbeddedStore();
  const host = await ensureDefaultHost(store);
  const sim = createSimHost();
  const template = JSON.stringify(await settleGuest(store, createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) }), guestName(0), new Date()));
  await sim.close();
  await store.close();
  const uid = (JSON.parse(template) as ZGuest).metadata.uid ?? '';
  function* objects(): Iterable<Resource> {
    yield host;
    for (let i = 0; i < count; i++) {
      const name = guestName(i);
      const guest = JSON.parse(template.replaceAll(guestName(0), name).replaceAll(guestName(0).toUpperCase(), name.toUpperCase()).replace(uid, randomUUID())) as ZGuest;
      guest.metadata.resourceVersion = String(i + 2);
      yield guest;
    }
  }
  await writeStateFile(join(stateDir, 'store.json'), serializeState(count + 1, objects()), silentLogger());
}
