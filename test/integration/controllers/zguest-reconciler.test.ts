import type { ZGuest } from '../../../src/api/index.js';
import { HypervisorError } from '../../../src/errors.js';
import { aControllerHarness } from '../../builders/controller-harness.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';
import { aRecordedHost } from '../../builders/recorded-host.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';

const signal = new AbortController().signal;
const condition = (g: ZGuest | undefined, type: string) => {
  const c = g?.status?.conditions?.find((x) => x.type === type);
  return c && `${c.status} ${c.reason}`;
};

describe('ZGuest reconciler', () => {
  it('puts the finalizer on before it touches the host, and converges in that same run', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    const finalizersAtCreate: (string[] | undefined)[] = [];
    const create = h.hv.createGuest.bind(h.hv);
    h.hv.createGuest = async (...args) => {
      finalizersAtCreate.push((await h.get(key))?.metadata.finalizers);
      return create(...args);
    };
    await h.reconciler.reconcile(key, signal);
    expect(finalizersAtCreate).toEqual([['zvm.dev/guest-protection']]);
    const guest = await h.get(key);
    expect(guest?.status?.observedGeneration).toBe(1);
    expect(condition(guest, 'Ready')).toBe('True GuestRunning');
  });

  it('a label another writer sets while the run acts on the host does not cost the run its status', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    const create = h.hv.createGuest.bind(h.hv);
    h.hv.createGuest = async (...args) => {
      await h.store.patch('ZGuest', key, { metadata: { labels: { 'zvm.dev/host': 'default' } } }); // as the host labeler does
      return create(...args);
    };
    await h.reconciler.reconcile(key, signal); // before: a ConflictError here, and the run's record lost
    const guest = await h.get(key);
    expect(condition(guest, 'Ready')).toBe('True GuestRunning');
    expect(guest?.metadata.labels).toEqual({ 'zvm.dev/host': 'default' });
    expect(h.events.filter((e) => e.type === 'Normal').map((e) => e.reason)).toEqual(['Created', 'Started']);
  });

  it('reports a converged guest Ready and writes no status when nothing changed', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ disks: [{ size: '1G' }] });
    await h.settle(key);
    const guest = await h.get(key);
    expect(guest?.status).toMatchObject({ phase: 'Running', powerState: 'on', host: 'default', vcpus: 2, memory: '2G', observedGeneration: 1 });
    expect(condition(guest, 'Ready')).toBe('True GuestRunning');
    const result = await h.reconciler.reconcile(key, signal);
    expect(result).toEqual({});
    expect((await h.get(key))?.metadata.resourceVersion).toBe(guest?.metadata.resourceVersion);
    expect(h.events.filter((e) => e.type === 'Normal').map((e) => e.reason)).toEqual(['Created', 'DiskAdded', 'Started']);
  });

  it('gives the younger of two ZGuests claiming one userid a conflict and never touches the other guest', async () => {
    const h = aControllerHarness();
    const first = await h.createGuest({}, { name: 'first' });
    await h.settle(first);
    const second = await h.createGuest({ vcpus: 4, powerState: 'Off' }, { name: 'second', namespace: 'other' });
    const result = await h.settle(second);
    expect(result.runs).toBe(1); // the finalizer and the conflict in one run: no requeue loop
    const guest = await h.get(second);
    expect(guest?.status?.phase).toBe('Conflict');
    expect(condition(guest, 'Synced')).toBe('False UseridConflict');
    expect(guest?.status?.powerState).toBeUndefined();
    expect(h.hv.calls.filter((c) => c.startsWith('createGuest'))).toHaveLength(1);
    expect(h.hv.entries.get('LINUX01')?.power).toBe('on');
    expect(h.events.filter((e) => e.name === 'second' && e.type === 'Warning').map((e) => e.reason)).toEqual(['UseridConflict']);
    await h.settle(first); // both were created within one second: the owner comment, not the uid order, decides
    expect(condition(await h.get(first), 'Ready')).toBe('True GuestRunning');

    await h.store.delete('ZGuest', second);
    await h.settle(second);
    expect(await h.get(second)).toBeUndefined();
    expect(h.hv.entries.has('LINUX01')).toBe(true); // the loser's deletion leaves the winner's guest alone
  });

  it('refuses to take over a userid that exists on the host unless adopt is set', async () => {
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'LINUX01', vcpus: 1, maxCpus: 8, memory: '1G', maxMemory: '8G' });
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({});
    await h.settle(key);
    expect((await h.get(key))?.status?.phase).toBe('Conflict');
    expect(hv.calls).toEqual(['createGuest LINUX01']);

    await h.store.patch('ZGuest', key, { spec: { adopt: true } });
    await h.settle(key);
    expect(hv.calls.slice(1)).toEqual(['rewriteDirectory LINUX01 2G cpus=2', 'start LINUX01']);
    expect(condition(await h.get(key), 'Ready')).toBe('True GuestRunning');
  });

  it('records a terminal hypervisor failure and does not loop', async () => {
    const hv = new FakeHypervisor();
    hv.addDisk = async () => {
      throw new HypervisorError('Image_Disk_Create_DM', 596, 3211, 'no space in pool');
    };
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({ disks: [{ size: '1G' }] });
    const result = await h.settle(key);
    expect(result.last).toEqual({});
    const guest = await h.get(key);
    expect(guest?.status?.lastError).toEqual({ overallRC: 8, rc: 596, rs: 3211, modID: 1, errmsg: 'no space in pool' });
    expect(guest?.status?.phase).toBe('Failed');
    expect(condition(guest, 'Synced')).toBe('False HypervisorError');
    expect(h.events.some((e) => e.type === 'Warning' && e.reason === 'HypervisorError')).toBe(true);
  });

  it('throws a retryable hypervisor error so the runtime backs off', async () => {
    const hv = new FakeHypervisor();
    hv.start = async () => {
      throw new HypervisorError('Image_Activate', 4, 0, 'busy', { retryable: true });
    };
    const h = aControllerHarness({ hv });
    const key = await h.createGuest({});
    await expect(h.reconciler.reconcile(key, signal)).rejects.toMatchObject({ retryable: true });
  });

  it('reports an unknown host and asks to look again later', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ host: 'nowhere' });
    await h.reconciler.reconcile(key, signal);
    const result = await h.reconciler.reconcile(key, signal);
    expect(result.requeueAfterMs).toBeGreaterThan(0);
    expect(condition(await h.get(key), 'Synced')).toBe('False HostNotFound');
  });

  it('puts no finalizer on a guest no host has seen, so that deleting it does not wait', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ host: 'nope' });
    await h.reconciler.reconcile(key, signal);
    const guest = await h.get(key);
    expect(guest?.metadata.finalizers ?? []).toEqual([]);
    expect(condition(guest!, 'Ready')).toBe('False HostNotFound');
    expect(h.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'HostNotFound' })]);
    await h.store.delete('ZGuest', key);
    expect(await h.get(key)).toBeUndefined();
  });

  it('says how to end the deletion of a guest whose host went away', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    await h.settle(key);
    delete h.hosts.default;
    await h.store.delete('ZGuest', key);
    await h.reconciler.reconcile(key, signal);
    const synced = (await h.get(key))?.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced).toMatchObject({ status: 'False', reason: 'HostNotFound', message: expect.stringContaining('set spec.deletionPolicy: Orphan') });
    await h.store.patch('ZGuest', key, { spec: { deletionPolicy: 'Orphan' } });
    await h.settle(key);
    expect(await h.get(key)).toBeUndefined();
  });

  it('releases an Orphan guest without its host and leaves it on the host otherwise', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ deletionPolicy: 'Orphan' });
    await h.settle(key);
    await h.store.delete('ZGuest', key);
    await h.settle(key);
    expect(await h.get(key)).toBeUndefined();
    expect(h.hv.entries.has('LINUX01')).toBe(true);
    expect(h.events.map((e) => e.reason)).toContain('Orphaned');
  });

  it('asks for a restart after shrinking CPUs of a running guest and clears it after a reboot token', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ vcpus: 4 });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { vcpus: 2 } });
    await h.settle(key);
    expect(condition(await h.get(key), 'RestartRequired')).toBe('True CpuChangePendingRestart');
    expect(condition(await h.get(key), 'Ready')).toBe('True GuestRunning');
    await h.store.patch('ZGuest', key, { metadata: { annotations: { 'zvm.dev/reboot-requested-at': '2026-06-01T00:00:00Z' } } });
    await h.settle(key);
    const guest = await h.get(key);
    expect(condition(guest, 'RestartRequired')).toBe('False ActiveConfigMatchesSpec');
    expect(guest?.status?.vcpus).toBe(2);
  });

  it('grows CPUs of a running guest live', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { vcpus: 3 } });
    await h.settle(key);
    expect(h.hv.calls.slice(-2)).toEqual(['setDirectoryCpus LINUX01 3', 'defineActiveCpus LINUX01 3']);
    const guest = await h.get(key);
    expect(condition(guest, 'RestartRequired')).toBe('False ActiveConfigMatchesSpec');
    expect(guest?.status?.observedGeneration).toBe(2);
  });
});

describe('a status write lost after the host was changed', () => {
  it('keeps what the run did (the deployed image) for the next run, which records it instead of holding the guest', async () => {
    const sim = createSimHost();
    const host = aRecordedHost(createInProcessCaller({ handler: sim }), { mgmt: true });
    const h = aControllerHarness({ hosts: { default: host.hv } });
    const key = await h.createGuest({ powerState: 'On', image: 'rhel9', disks: [{ size: '1G', boot: true }] });
    // the apiserver refuses the status write of the run that deployed (down for longer than a run's retries)
    const write = h.store.updateStatus.bind(h.store);
    let refused = 0;
    h.store.updateStatus = (async (obj: ZGuest) => {
      if (obj.status?.deployedImage && refused === 0) {
        refused += 1;
        throw new Error('apiserver unavailable');
      }
      return write(obj);
    }) as typeof h.store.updateStatus;
    await expect(h.reconciler.reconcile(key, signal)).rejects.toThrow('apiserver unavailable');
    await h.settle(key);
    const guest = await h.get(key);
    expect(refused).toBe(1);
    expect(guest?.status?.deployedImage).toBe('rhel9');
    expect(condition(guest, 'Ready')).toBe('True GuestRunning');
    expect(host.sent.filter((c) => c.kind === 'mgmt').map((c) => c.kind === 'mgmt' && c.op)).toEqual(['deployImage']); // once
  });
});
