/**
 * Crash convergence (DESIGN.md §2): a crash at any step and a rerun converge without duplicates or
 * leaks. The host is a fake that crashes at its Nth mutating call, either before the host applies it
 * or after (the host applied it, the controller never learned). The lead switches this to the
 * simulator once it lands.
 */
import { Annotations, type ZGuest, type ZGuestSpec } from '../../../src/api/index.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { aControllerHarness, type Harness } from '../../builders/controller-harness.js';
import { FakeHypervisor, InjectedCrash, type CrashPlan } from '../../builders/fake-hypervisor.js';

const spec: Partial<ZGuestSpec> = {
  disks: [{ size: '10G', boot: true }, { size: '1G' }, { size: '2G', vdev: '0200', format: 'xfs' }],
};
const specVdevs = ['0100', '0101', '0200'];

/** Mutating calls of a clean run, so every crash point is covered. */
async function cleanRunCalls(prepare: (h: Harness) => Promise<ObjectKey>, change?: (h: Harness, key: ObjectKey) => Promise<void>): Promise<number> {
  const h = aControllerHarness();
  const key = await prepare(h);
  const before = h.hv.calls.length;
  if (change) await change(h, key);
  await h.settle(key);
  return h.hv.calls.length - before;
}

const crashPoints = (n: number): CrashPlan[] =>
  Array.from({ length: n }, (_, i) => i + 1).flatMap((call) => [{ call, when: 'before' as const }, { call, when: 'after' as const }]);

async function expectConverged(h: Harness, key: ObjectKey, vdevs: string[]): Promise<ZGuest> {
  expect([...h.hv.entries.keys()]).toEqual(['LINUX01']);
  const state = await h.hv.describeGuest('LINUX01');
  expect(state?.directory.disks.map((d) => d.vdev).sort()).toEqual(vdevs);
  expect(h.hv.calls.filter((c) => c.startsWith('createGuest'))).toHaveLength(1);
  const guest = await h.get(key);
  expect(guest?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  expect(guest?.status?.lastError).toBeUndefined();
  const calls = h.hv.calls.length;
  await h.settle(key);
  expect(h.hv.calls.length).toBe(calls); // converged: a further reconcile changes nothing on the host
  return guest as ZGuest;
}

const createOnly = (h: Harness) => h.createGuest(spec);
const converged = async (h: Harness) => {
  const key = await h.createGuest(spec);
  await h.settle(key);
  return key;
};

describe('ZGuest reconciler: crash at every step', () => {
  it('a clean run creates the guest, its disks and starts it', async () => {
    const h = aControllerHarness();
    const key = await createOnly(h);
    await h.settle(key);
    expect(h.hv.calls).toEqual(['createGuest LINUX01', 'addDisk LINUX01 0100', 'addDisk LINUX01 0101', 'addDisk LINUX01 0200', 'start LINUX01']);
    await expectConverged(h, key, specVdevs);
  });

  it('creation converges to one guest with exactly the spec disks whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(createOnly));
    expect(points.length).toBe(10);
    for (const crash of points) {
      const hv = new FakeHypervisor();
      hv.crash = crash;
      const h = aControllerHarness({ hv });
      const key = await createOnly(h);
      const { crashes } = await h.settle(key);
      expect(crashes).toHaveLength(1);
      expect(crashes[0]).toBeInstanceOf(InjectedCrash);
      const guest = await expectConverged(h, key, specVdevs);
      expect(guest.status?.powerState).toBe('on');
    }
  });

  const resize = async (h: Harness, key: ObjectKey) => {
    const g = (await h.get(key)) as ZGuest;
    const disks = [...(g.spec.disks ?? []).filter((d) => d.vdev !== '0200'), { size: '5G', vdev: '0300' }];
    await h.store.patch('ZGuest', key, { spec: { vcpus: 4, memory: '4G', disks, powerState: 'Off' } });
  };

  it('a spec change (resize, disk swap, stop) converges whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(converged, resize));
    expect(points.length).toBeGreaterThanOrEqual(10);
    for (const crash of points) {
      const h = aControllerHarness();
      const key = await converged(h);
      await resize(h, key);
      h.hv.crash = { ...crash, call: crash.call + h.hv.calls.length };
      await h.settle(key);
      const guest = await expectConverged(h, key, ['0100', '0101', '0300']);
      const state = await h.hv.describeGuest('LINUX01');
      expect({ power: state?.power, cpus: state?.directory.cpus, memory: state?.directory.memory }).toEqual({ power: 'off', cpus: 4, memory: '4G' });
      expect(guest.status?.disks?.map((d) => d.vdev)).toEqual(['0100', '0101', '0300']);
    }
  });

  const reboot = (h: Harness, key: ObjectKey) => h.store.patch('ZGuest', key, { metadata: { annotations: { [Annotations.rebootRequestedAt]: '2026-05-01T00:00:00Z' } } }).then(() => undefined);

  // At least once: a crash after the final start but before the acknowledgement reaches status is
  // indistinguishable (from CP's view) from a crash before the stop, so that one case reboots twice.
  it('a reboot token is handled at least once, and twice only if the crash hid the final start', async () => {
    for (const crash of crashPoints(await cleanRunCalls(converged, reboot))) {
      const h = aControllerHarness();
      const key = await converged(h);
      await reboot(h, key);
      const base = h.hv.calls.length;
      h.hv.crash = { ...crash, call: crash.call + base };
      await h.settle(key);
      const guest = await expectConverged(h, key, specVdevs);
      expect(guest.status?.lastHandledRebootAt).toBe('2026-05-01T00:00:00Z');
      const cycle = ['stop LINUX01', 'start LINUX01'];
      const hidden = crash.call === 2 && crash.when === 'after';
      expect(h.hv.calls.slice(base)).toEqual(hidden ? [...cycle, ...cycle] : cycle);
    }
  });

  it('deletion removes the guest and then the object whatever step crashed', async () => {
    for (const when of ['before', 'after'] as const) {
      const h = aControllerHarness();
      const key = await converged(h);
      await h.store.delete('ZGuest', key);
      h.hv.crash = { call: h.hv.calls.length + 1, when };
      const { crashes } = await h.settle(key);
      expect(crashes).toHaveLength(1);
      expect(h.hv.entries.size).toBe(0);
      expect(await h.get(key)).toBeUndefined();
    }
  });
});
