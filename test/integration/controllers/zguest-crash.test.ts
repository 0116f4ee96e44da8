/**
 * Crash convergence (docs/architecture.md §2): a crash at any step and a rerun converge without duplicates or
 * leaks. The host crashes at its Nth mutating call, either before the host applies it or after (the
 * host applied it, the controller never learned). It runs against the small fake host and against
 * the simulator behind the real SMAPI adapter.
 */
import { Annotations, type ZGuest, type ZGuestSpec } from '../../../src/api/index.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiClient, createSmapiServer, type SmapiServer } from '../../../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { aControllerHarness, type Harness } from '../../builders/controller-harness.js';
import { InjectedCrash, withCrashes, type CrashingHypervisor, type CrashPlan } from '../../builders/crashing-hypervisor.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';

const spec: Partial<ZGuestSpec> = {
  disks: [{ size: '10G', boot: true }, { size: '1G' }, { size: '2G', vdev: '0200', format: 'xfs' }],
};
const specVdevs = ['0100', '0101', '0200'];

interface World {
  h: Harness;
  host: CrashingHypervisor;
  /** directory entries that existed before the test (the simulator ships system users) */
  initial: Set<string>;
}

const servers: SmapiServer[] = [];
const auth = { userid: 'MAINT', password: 'CRASHTST' };

/** The production path: the SMAPI client over loopback TCP to the simulator's wire server. */
async function simulatorOverTcp(): Promise<Hypervisor> {
  const server = await createSmapiServer({ handler: createSimHost(), auth, host: '127.0.0.1', port: 0 });
  servers.push(server);
  const caller = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, poolSize: 4, timeoutMs: 10_000 });
  return createSmapiHypervisor({ hostName: 'default', caller });
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const backends: [string, () => Hypervisor | Promise<Hypervisor>][] = [
  ['fake host', () => new FakeHypervisor()],
  ['simulator', () => createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: createSimHost() }) })],
  ['simulator over SMAPI TCP', simulatorOverTcp],
];

describe.each(backends)('ZGuest reconciler crash convergence on the %s', (_name, makeHost) => {
  async function aWorld(): Promise<World> {
    const host = withCrashes(await makeHost());
    const h = aControllerHarness({ hosts: { default: host.hv } });
    return { h, host, initial: new Set(await host.hv.listDirectory()) };
  }

  /** Mutating calls of a clean run, so every crash point is covered. */
  async function cleanRunCalls(prepare: (w: World) => Promise<ObjectKey>, change?: (w: World, key: ObjectKey) => Promise<void>): Promise<number> {
    const w = await aWorld();
    const key = await prepare(w);
    const before = w.host.calls.length;
    if (change) await change(w, key);
    await w.h.settle(key);
    return w.host.calls.length - before;
  }

  const crashPoints = (n: number): CrashPlan[] =>
    Array.from({ length: n }, (_, i) => i + 1).flatMap((call) => [{ call, when: 'before' as const }, { call, when: 'after' as const }]);

  async function expectConverged(w: World, key: ObjectKey, vdevs: string[]): Promise<ZGuest> {
    const added = (await w.host.hv.listDirectory()).filter((u) => !w.initial.has(u));
    expect(added).toEqual(['LINUX01']);
    const state = await w.host.hv.describeGuest('LINUX01');
    expect(state?.directory.disks.map((d) => d.vdev).sort()).toEqual(vdevs);
    expect(w.host.calls.filter((c) => c.startsWith('createGuest'))).toHaveLength(1);
    const guest = await w.h.get(key);
    expect(guest?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(guest?.status?.lastError).toBeUndefined();
    const calls = w.host.calls.length;
    await w.h.settle(key);
    expect(w.host.calls.length).toBe(calls); // converged: a further reconcile changes nothing on the host
    return guest as ZGuest;
  }

  const createOnly = (w: World) => w.h.createGuest(spec);
  const converged = async (w: World) => {
    const key = await w.h.createGuest(spec);
    await w.h.settle(key);
    return key;
  };

  it('a clean run creates the guest, its disks and starts it', async () => {
    const w = await aWorld();
    const key = await createOnly(w);
    await w.h.settle(key);
    expect(w.host.calls).toEqual(['createGuest LINUX01', 'addDisk LINUX01 0100', 'addDisk LINUX01 0101', 'addDisk LINUX01 0200', 'start LINUX01']);
    await expectConverged(w, key, specVdevs);
  });

  it('creation converges to one guest with exactly the spec disks whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(createOnly));
    expect(points.length).toBe(10);
    for (const crash of points) {
      const w = await aWorld();
      w.host.arm(crash);
      const key = await createOnly(w);
      const { crashes } = await w.h.settle(key);
      expect(crashes).toHaveLength(1);
      expect(crashes[0]).toBeInstanceOf(InjectedCrash);
      const guest = await expectConverged(w, key, specVdevs);
      expect(guest.status?.powerState).toBe('on');
    }
  });

  const resize = async (w: World, key: ObjectKey) => {
    const g = (await w.h.get(key)) as ZGuest;
    const disks = [...(g.spec.disks ?? []).filter((d) => d.vdev !== '0200'), { size: '5G', vdev: '0300' }];
    await w.h.store.patch('ZGuest', key, { spec: { vcpus: 4, memory: '4G', disks, powerState: 'Off' } });
  };

  /** A converged guest, then `change` with one crash armed, reconciled until it settles. */
  async function changedWithCrash(change: (w: World, key: ObjectKey) => Promise<void>, crash: CrashPlan): Promise<{ w: World; key: ObjectKey }> {
    const w = await aWorld();
    const key = await converged(w);
    await change(w, key);
    w.host.arm(crash);
    await w.h.settle(key);
    return { w, key };
  }

  it('a spec change (resize, disk swap, stop) converges whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(converged, resize));
    expect(points.length).toBeGreaterThanOrEqual(8); // one rewrite (memory and CPUs), stop, removeDisk, addDisk
    for (const crash of points) {
      const { w, key } = await changedWithCrash(resize, crash);
      const guest = await expectConverged(w, key, ['0100', '0101', '0300']);
      const state = await w.host.hv.describeGuest('LINUX01');
      expect({ power: state?.power, cpus: state?.directory.cpus, memory: state?.directory.memory }).toEqual({ power: 'off', cpus: 4, memory: '4G' });
      expect(guest.status?.disks?.map((d) => d.vdev)).toEqual(['0100', '0101', '0300']);
    }
  });

  const liveResize = async (w: World, key: ObjectKey) => {
    await w.h.store.patch('ZGuest', key, { spec: { vcpus: 4, memory: '4G' } });
  };

  it('a live resize (one directory rewrite, then CPUs defined on the running guest) converges whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(converged, liveResize));
    expect(points.length).toBe(4);
    for (const crash of points) {
      const { w, key } = await changedWithCrash(liveResize, crash);
      await expectConverged(w, key, specVdevs);
      const state = await w.host.hv.describeGuest('LINUX01');
      expect({ power: state?.power, cpus: state?.directory.cpus, memory: state?.directory.memory, active: state?.active?.cpus })
        .toEqual({ power: 'on', cpus: 4, memory: '4G', active: 4 });
      expect(w.host.calls.filter((c) => c.startsWith('defineActiveCpus'))).toHaveLength(1); // a rerun reads the CPUs already defined
    }
  });

  const reboot = async (w: World, key: ObjectKey) => {
    await w.h.store.patch('ZGuest', key, { metadata: { annotations: { [Annotations.rebootRequestedAt]: '2026-05-01T00:00:00Z' } } });
  };

  // At least once: a crash after the final start but before the acknowledgement reaches status is
  // indistinguishable (from CP's view) from a crash before the stop, so that one case reboots twice.
  it('a reboot token is handled at least once, and twice only if the crash hid the final start', async () => {
    for (const crash of crashPoints(await cleanRunCalls(converged, reboot))) {
      const w = await aWorld();
      const key = await converged(w);
      await reboot(w, key);
      const base = w.host.calls.length;
      w.host.arm(crash);
      await w.h.settle(key);
      const guest = await expectConverged(w, key, specVdevs);
      expect(guest.status?.lastHandledRebootAt).toBe('2026-05-01T00:00:00Z');
      const cycle = ['stop LINUX01', 'start LINUX01'];
      const hidden = crash.call === 2 && crash.when === 'after';
      expect(w.host.calls.slice(base)).toEqual(hidden ? [...cycle, ...cycle] : cycle);
    }
  });

  const addNics = async (w: World, key: ObjectKey) => {
    const nics = [{ vdev: '1000', vswitch: 'VSW1', mac: '02:00:01:AB:CD:EF' }, { vdev: '1003' }];
    await w.h.store.patch('ZGuest', key, { spec: { nics } });
  };
  const withNics = async (w: World) => {
    const key = await converged(w);
    await addNics(w, key);
    await w.h.settle(key);
    return key;
  };
  const swapNics = async (w: World, key: ObjectKey) => {
    await w.h.store.patch('ZGuest', key, { spec: { nics: [{ vdev: '1000' }, { vdev: '2000', vswitch: 'VSW2' }] } });
  };
  const nicsOnHost = async (w: World) =>
    (await w.host.hv.describeGuest('LINUX01'))?.directory.nics.map((n) => `${n.vdev}${n.vswitch ? ` ${n.vswitch}` : ''}${n.macId ? ` ${n.macId}` : ''}`).sort();

  it('NICs added to the spec are created and coupled exactly once whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(converged, addNics));
    expect(points.length).toBe(6); // createNic 1000, coupleNic 1000, createNic 1003
    for (const crash of points) {
      const w = await aWorld();
      const key = await converged(w);
      await addNics(w, key);
      w.host.arm(crash);
      await w.h.settle(key);
      const guest = await expectConverged(w, key, specVdevs);
      expect(await nicsOnHost(w)).toEqual(['1000 VSW1 ABCDEF', '1003']);
      expect(w.host.calls.filter((c) => c.startsWith('createNic'))).toHaveLength(2);
      expect(guest.status?.nics?.map((n) => n.vdev)).toEqual(['1000', '1003']);
    }
  });

  it('a NIC swap (delete, create, couple, uncouple) converges whatever step crashed', async () => {
    const points = crashPoints(await cleanRunCalls(withNics, swapNics));
    expect(points.length).toBe(8); // deleteNic 1003, uncoupleNic 1000, createNic 2000, coupleNic 2000
    for (const crash of points) {
      const w = await aWorld();
      const key = await withNics(w);
      await swapNics(w, key);
      w.host.arm(crash);
      await w.h.settle(key);
      const guest = await expectConverged(w, key, specVdevs);
      expect(await nicsOnHost(w)).toEqual(['1000 ABCDEF', '2000 VSW2']);
      expect(guest.status?.nics?.map((n) => n.vdev)).toEqual(['1000', '2000']);
    }
  });

  it('deletion removes the guest and then the object whatever step crashed', async () => {
    for (const when of ['before', 'after'] as const) {
      const w = await aWorld();
      const key = await converged(w);
      await w.h.store.delete('ZGuest', key);
      w.host.arm({ call: 1, when });
      const { crashes } = await w.h.settle(key);
      expect(crashes).toHaveLength(1);
      expect(await w.host.hv.describeGuest('LINUX01')).toBeUndefined();
      expect((await w.host.hv.listDirectory()).filter((u) => !w.initial.has(u))).toEqual([]);
      expect(await w.h.get(key)).toBeUndefined();
    }
  });
});
