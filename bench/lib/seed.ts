/**
 * Seeds N settled guests at once: defined and logged on in the simulator, and in the store with
 * the finalizer and the status the controller would have written (Ready, observedGeneration 1).
 * It talks to the simulator in-process and builds status with the controller's own pure functions,
 * so seeding 10 000 guests takes seconds instead of a fleet run.
 */
import { join } from 'node:path';
import { FINALIZER, type ZGuest } from '../../src/api/index.js';
import { computeZGuestStatus, DEFAULT_GUEST_DEFAULTS } from '../../src/controllers/index.js';
import { buildDefinition, resolveDisks, toDiskRequest } from '../../src/controllers/zguest/definition.js';
import { createInProcessCaller } from '../../src/hypervisor/in-process-caller.js';
import type { SimHost } from '../../src/hypervisor/sim/index.js';
import { createSmapiHypervisor } from '../../src/hypervisor/smapi-hypervisor.js';
import { silentLogger } from '../../src/log.js';
import { serializeState, writeStateFile } from '../../src/store/embedded/state-file.js';
import { createEmbeddedStore } from '../../src/store/index.js';
import { aBenchGuest, ensureDefaultHost } from './operator-world.js';

export const guestName = (i: number): string => `g${String(i).padStart(5, '0')}`;

/** Writes `store.json` into stateDir holding the seeded guests (plus the default ZHost). */
export async function seedSettledGuests(sim: SimHost, count: number, stateDir: string): Promise<void> {
  const store = createEmbeddedStore();
  await ensureDefaultHost(store);
  const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) });
  const now = new Date();
  for (let i = 0; i < count; i++) {
    const guest = await store.create<ZGuest>({ ...aBenchGuest(guestName(i)), metadata: { name: guestName(i), namespace: 'default', finalizers: [FINALIZER] } });
    await hv.createGuest(buildDefinition(guest, DEFAULT_GUEST_DEFAULTS));
    for (const d of resolveDisks(guest, DEFAULT_GUEST_DEFAULTS)) await hv.addDisk(guest.spec.userid, toDiskRequest(d));
    await hv.start(guest.spec.userid);
    const observed = await hv.describeGuest(guest.spec.userid);
    const status = computeZGuestStatus({
      guest, hostName: 'default', observed, plan: { steps: [], problems: [], ownership: 'owned' }, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now,
    });
    await store.updateStatus({ ...guest, status });
  }
  const objects = [...(await store.list('ZHost')).items, ...(await store.list('ZGuest')).items];
  const rv = Math.max(...objects.map((o) => Number(o.metadata.resourceVersion)));
  await writeStateFile(join(stateDir, 'store.json'), serializeState(rv, objects), silentLogger());
  await store.close();
}
