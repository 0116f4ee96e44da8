/**
 * The reconciler uses the observed state it holds (figure 1 of bench/): after its own successful
 * steps it projects the host state instead of reading it, reads again when asked to look again or
 * when the host refuses a step planned on a held observation, and forgets it after any failure.
 */
import { OWNER_UID_ANNOTATION, type ZGuest } from '../../../src/api/index.js';
import { HypervisorError } from '../../../src/errors.js';
import { aControllerHarness, recordingEvents } from '../../builders/controller-harness.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { aRecordedHost } from '../../builders/recorded-host.js';
import { createZGuestReconciler } from '../../../src/controllers/zguest/reconciler.js';
import { silentLogger } from '../../../src/log.js';

/** A fake host that also counts its reads. */
function aCountingHost() {
  const hv = new FakeHypervisor();
  const reads = { describeGuest: 0, queryPowerState: 0 };
  const describe = hv.describeGuest.bind(hv);
  const power = hv.queryPowerState.bind(hv);
  hv.describeGuest = async (userid) => {
    reads.describeGuest += 1;
    return describe(userid);
  };
  hv.queryPowerState = async (userid) => {
    reads.queryPowerState += 1;
    return power(userid);
  };
  return { hv, reads };
}

const ready = (g: ZGuest | undefined) => g?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('ZGuest reconciler with a held observation', () => {
  it('creates, starts and stops a guest without reading the host: a guest never reported on is created first', async () => {
    const { hv, reads } = aCountingHost();
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({ disks: [{ size: '1G' }] });
    await h.settle(key);
    expect(reads).toEqual({ describeGuest: 0, queryPowerState: 0 });
    expect(hv.calls).toEqual(['createGuest LINUX01', 'addDisk LINUX01 0100', 'start LINUX01']);
    await h.store.patch('ZGuest', key, { spec: { powerState: 'Off' } });
    await h.settle(key);
    expect(hv.calls.slice(-1)).toEqual(['stop LINUX01']);
    expect(reads.describeGuest).toBe(0);
    const guest = await h.get(key);
    expect(guest?.status?.powerState).toBe('off');
    expect(ready(guest)).toBe('True');
  });

  it('checks the power with one query when the REST sidecar asks to look again, and acts on what it finds', async () => {
    const { hv, reads } = aCountingHost();
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({});
    await h.settle(key);
    await hv.stop('LINUX01'); // behind the controller's back
    await h.store.patch('ZGuest', key, { metadata: { annotations: { 'zvm.dev/rest-requested-at': '2026-03-01T00:00:00Z' } } });
    await h.settle(key);
    expect(reads.queryPowerState).toBe(1);
    expect(reads.describeGuest).toBe(1); // the power differed: a full read before acting
    expect(hv.calls.slice(-1)).toEqual(['start LINUX01']);
    expect((await h.get(key))?.status?.powerState).toBe('on');
  });

  it('reads the host and plans again when a step planned on a held observation is refused', async () => {
    const { hv, reads } = aCountingHost();
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({ powerState: 'Off' });
    await h.settle(key);
    await hv.start('LINUX01'); // the held observation now says off wrongly
    const pause = hv.pause.bind(hv);
    let refused = 0;
    hv.pause = async (userid) => {
      if (refused++ === 0) throw new HypervisorError('Image_Pause', 200, 12, 'refused once');
      return pause(userid);
    };
    await h.store.patch('ZGuest', key, { spec: { powerState: 'Paused' } });
    await h.settle(key);
    expect(reads.describeGuest).toBe(1);
    expect(h.events.filter((e) => e.type === 'Warning')).toEqual([]); // refused on a held observation: read, not reported
    expect(hv.calls.slice(-1)).toEqual(['pause LINUX01']);
    expect((await h.get(key))?.status?.powerState).toBe('paused');
    expect((await h.get(key))?.status?.lastError).toBeUndefined();
  });

  it('forgets the observation after a crash, so the rerun reads the host', async () => {
    const { hv, reads } = aCountingHost();
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({});
    await h.settle(key);
    const stop = hv.stop.bind(hv);
    let crashed = false;
    hv.stop = async (userid) => {
      await stop(userid);
      if (!crashed) {
        crashed = true;
        throw new Error('connection lost after the host applied the stop');
      }
    };
    await h.store.patch('ZGuest', key, { spec: { powerState: 'Off' } });
    const { crashes } = await h.settle(key);
    expect(crashes).toHaveLength(1);
    expect(reads.describeGuest).toBe(1);
    expect(hv.calls.filter((c) => c === 'stop LINUX01')).toHaveLength(1);
    expect((await h.get(key))?.status?.powerState).toBe('off');
  });

  it('a copy in another store (clusterctl move, a restore) reads the host, owns the guest through its annotation and changes nothing there', async () => {
    const { hv, reads } = aCountingHost();
    const first = aControllerHarness({ hv });
    const key = await first.createGuest({ disks: [{ size: '1G' }] });
    await first.settle(key);
    const original = (await first.get(key))!;
    expect(original.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(original.metadata.uid);
    const callsBefore = hv.calls.length;
    const tried: string[] = []; // calls the host refused are not in hv.calls
    const create = hv.createGuest.bind(hv);
    hv.createGuest = async (def) => {
      tried.push(def.userid);
      return create(def);
    };
    // what the copy carries over: metadata (annotations, finalizers) and spec; not the uid, not status
    const second = aControllerHarness({ hv });
    await second.store.create({ ...original, metadata: { name: key.name, namespace: key.namespace, annotations: original.metadata.annotations, finalizers: original.metadata.finalizers }, status: undefined });
    await second.settle(key);
    const copy = (await second.get(key))!;
    expect(copy.metadata.uid).not.toBe(original.metadata.uid);
    expect(hv.calls.slice(callsBefore)).toEqual([]);
    expect(tried).toEqual([]);
    expect(reads.describeGuest).toBe(1);
    expect(copy.status?.phase).toBe('Running');
    expect(ready(copy)).toBe('True');
    // and deleting the copy deletes the guest, as the original would have
    await second.store.delete('ZGuest', key);
    await second.settle(key);
    expect(hv.calls.slice(callsBefore)).toEqual(['deleteGuest LINUX01']);
  });

  it('after a crash between the create and its status, a restarted controller\'s create is refused, read, and not repeated', async () => {
    const { hv, reads } = aCountingHost();
    const h = aControllerHarness({ hv });
    const create = hv.createGuest.bind(hv);
    hv.createGuest = async (def) => {
      await create(def);
      throw new Error('the process died after the host created the entry');
    };
    const key = await h.createGuest({ disks: [{ size: '1G' }] });
    await expect(h.reconciler.reconcile(key, new AbortController().signal)).rejects.toThrow('process died'); // after the finalizer
    hv.createGuest = create;
    expect((await h.get(key))?.status?.observedGeneration).toBeUndefined();
    // a new process: its cache is empty, and the status still says nothing of the guest
    const events = recordingEvents();
    const restarted = createZGuestReconciler({ store: h.store, hypervisors: { forHost: () => hv }, events, log: silentLogger(), pollMs: 10 });
    for (let i = 0; i < 10; i++) if ((await restarted.reconcile(key, new AbortController().signal)).requeueAfterMs === undefined) break;
    expect(hv.calls).toEqual(['createGuest LINUX01', 'addDisk LINUX01 0100', 'start LINUX01']);
    expect(reads.describeGuest).toBe(1); // the refused create (400/8) made the next look a read
    const guest = await h.get(key);
    expect(ready(guest)).toBe('True');
    expect(guest?.status?.lastError).toBeUndefined();
    expect([...h.events, ...events.events].filter((e) => e.type === 'Warning')).toEqual([]);
  });

  it('defines live CPUs from the held count; a CPU defined behind its back is refused by the host, read, and not defined twice', async () => {
    const sim = createSimHost();
    const defines: unknown[] = [];
    const handler = { handle: (req: Parameters<typeof sim.handle>[0]) => {
      if (req.fn === 'Image_CPU_Define') defines.push(req.params?.cpu_address);
      return sim.handle(req);
    } };
    const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler }) });
    const h = aControllerHarness({ hosts: { default: hv } });
    const key = await h.createGuest({ vcpus: 2, maxCpus: 8 });
    await h.settle(key);
    const defined = await sim.handle({ fn: 'Image_CPU_Define', target: 'LINUX01', params: { cpu_address: '02', cpu_type: 2 } });
    expect(defined.rc).toBe(0); // the held observation still says 2 active CPUs
    await h.store.patch('ZGuest', key, { spec: { vcpus: 4 } });
    await h.settle(key);
    const state = await hv.describeGuest('LINUX01');
    expect({ directory: state?.directory.cpus, active: state?.active?.cpus }).toEqual({ directory: 4, active: 4 });
    expect(defines).toEqual(['02', '03']); // 02 refused (216/24: it exists), then only 03 after the read
    const guest = await h.get(key);
    expect(guest?.status?.vcpus).toBe(4);
    expect(guest?.status?.lastError).toBeUndefined();
  });

  /** The simulator in the process behind the SMAPI adapter, its reads counted by function, its writes (and deploys) recorded. */
  function aSimHost() {
    const sim = createSimHost();
    const reads: string[] = [];
    const inner = createInProcessCaller({ handler: sim });
    const counting = { ...inner, call: ((fn, target, params, o) => {
      if (fn.includes('Query')) reads.push(fn);
      return inner.call(fn, target, params, o);
    }) as typeof inner.call };
    return { sim, reads, ...aRecordedHost(counting, { mgmt: true }) };
  }

  it('confirms the held power with one query before a deploy, and reads nothing after it', async () => {
    const host = aSimHost();
    const h = aControllerHarness({ hosts: { default: host.hv } });
    const key = await h.createGuest({ powerState: 'Off', disks: [{ size: '1G', boot: true }] });
    await h.settle(key);
    host.reads.length = 0;
    await h.store.patch('ZGuest', key, { spec: { image: 'rhel9' } });
    await h.settle(key);
    expect(host.sent.filter((c) => c.kind === 'mgmt').map((c) => c.kind === 'mgmt' && c.op)).toEqual(['deployImage']);
    expect(host.reads).toEqual(['Image_Status_Query']);
    expect((await h.get(key))?.status?.deployedImage).toBe('rhel9');
  });

  it('stops a guest logged on behind its back before it deploys onto its disk: the power query finds it on', async () => {
    const host = aSimHost();
    const h = aControllerHarness({ hosts: { default: host.hv } });
    const key = await h.createGuest({ powerState: 'Off', disks: [{ size: '1G', boot: true }] });
    await h.settle(key);
    expect((await host.sim.handle({ fn: 'Image_Activate', target: 'LINUX01', params: {} })).rc).toBe(0); // the held observation still says off
    const from = host.sent.length;
    await h.store.patch('ZGuest', key, { spec: { image: 'rhel9' } });
    await h.settle(key);
    expect(host.sent.slice(from).map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual(['Image_Deactivate', 'deployImage']);
    const guest = await h.get(key);
    expect(guest?.status?.powerState).toBe('off');
    expect(guest?.status?.deployedImage).toBe('rhel9');
  });
});
