import { SMAPI_REACHABLE, unreachableSince, type ZGuest, type ZHost } from '../../../../src/api/index.js';
import { createZGuestDriftDetector } from '../../../../src/controllers/zguest/drift.js';
import { createObservedCache } from '../../../../src/controllers/zguest/observed-cache.js';
import {
  hostReachabilityConditions, isNoAnswer, lookBoundMs, REACHABLE, stepReachability, unreachableGuestStatus, unreachableMessage,
} from '../../../../src/controllers/zguest/outage.js';
import { HypervisorError } from '../../../../src/errors.js';
import type { CallOptions, PowerState } from '../../../../src/hypervisor/port.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import type { ObjectKey } from '../../../../src/store/port.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const GRACE = 10_000;
const refused = () => new HypervisorError('Image_Status_Query', -101, 0, 'connect ECONNREFUSED', { retryable: true });

describe('host reachability (pure)', () => {
  it('counts only calls that got no answer at all', () => {
    expect(isNoAnswer(refused())).toBe(true);
    expect(isNoAnswer(new HypervisorError('Image_Status_Query', -103, 0, 'no answer within 30000 ms', { retryable: true }))).toBe(true);
    expect(isNoAnswer(new HypervisorError('Image_Status_Query', -110, 0, 'aborted'))).toBe(false); // our own abort
    expect(isNoAnswer(new HypervisorError('Image_Status_Query', 200, 4, 'image not found'))).toBe(false); // the host answered
    expect(isNoAnswer(new Error('boom'))).toBe(false);
  });

  it('declares an outage only once the failures have lasted the grace, and looks again when it ends', () => {
    const first = stepReachability(REACHABLE, 'noAnswer', 1_000, GRACE);
    expect(first).toEqual({ next: { failingSince: 1_000, unreachable: false }, lookAgainMs: GRACE });
    const still = stepReachability(first.next, 'noAnswer', 7_000, GRACE);
    expect(still).toEqual({ next: { failingSince: 1_000, unreachable: false }, lookAgainMs: 4_000 });
    const down = stepReachability(still.next, 'noAnswer', 11_000, GRACE);
    expect(down).toEqual({ next: { failingSince: 1_000, unreachable: true }, transition: 'down' });
    expect(stepReachability(down.next, 'noAnswer', 40_000, GRACE)).toEqual({ next: { failingSince: 1_000, unreachable: true } });
    expect(stepReachability(down.next, 'answered', 41_000, GRACE)).toEqual({ next: REACHABLE, transition: 'up' });
  });

  it('counts the grace from the start of the first look that got no answer', () => {
    expect(stepReachability(REACHABLE, 'noAnswer', 4_500, GRACE, 1_000)).toEqual({ next: { failingSince: 1_000, unreachable: false }, lookAgainMs: 6_500 });
  });

  it('bounds a look by the grace, never below a second', () => {
    expect(lookBoundMs(GRACE)).toBe(GRACE);
    expect(lookBoundMs(0)).toBe(1000);
  });

  it('forgets a failure the next answer follows, within the grace: no outage', () => {
    const first = stepReachability(REACHABLE, 'noAnswer', 1_000, GRACE);
    expect(stepReachability(first.next, 'answered', 5_000, GRACE)).toEqual({ next: REACHABLE });
  });

  it('says Unknown on a guest without touching what was last seen, and nothing when it already does', () => {
    const guest = aGuest({}, { status: {
      observedGeneration: 1, phase: 'Running', powerState: 'on',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'GuestRunning', message: 'the guest is on as requested', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    } });
    const message = unreachableMessage('default', Date.parse('2026-01-02T00:00:00Z'));
    const status = unreachableGuestStatus(guest, message, new Date('2026-01-02T00:00:10Z'));
    expect(status?.phase).toBe('Unknown');
    expect(status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'Unknown', reason: 'HostUnreachable', lastTransitionTime: '2026-01-02T00:00:10.000Z' });
    expect(status?.conditions?.[0]?.message).toContain('has not answered since 2026-01-02T00:00:00.000Z');
    expect(status?.conditions?.[1]).toMatchObject({ type: 'Synced', status: 'True' });
    expect(status).not.toHaveProperty('powerState');
    const again = { ...guest, status: { ...guest.status, ...status } } as ZGuest;
    expect(unreachableGuestStatus(again, message, new Date('2026-01-02T00:01:00Z'))).toBeUndefined();
  });

  it('turns the ZHost Ready and SmapiReachable False on an outage, and only SmapiReachable True after it (the ZHost reconciler owns Ready)', () => {
    expect(hostReachabilityConditions('down', 'm').map((c) => [c.type, c.status, c.reason])).toEqual([[SMAPI_REACHABLE, 'False', 'HostUnreachable'], ['Ready', 'False', 'HostUnreachable']]);
    expect(hostReachabilityConditions('up', '').map((c) => [c.type, c.status])).toEqual([[SMAPI_REACHABLE, 'True']]);
  });
});

describe('the drift detector during an outage', () => {
  it('marks the guests of a host that stops answering Unknown after the grace, and reconciles them once it answers', async () => {
    const store = createEmbeddedStore();
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1alpha1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } });
    const a = await store.create(aGuest({ userid: 'A' }, { name: 'a', finalizers: [] }));
    await store.patchStatus('ZGuest', { namespace: 'default', name: 'a' }, { observedGeneration: 1, phase: 'Stopped', powerState: 'off' });
    const other = await store.create(aGuest({ userid: 'B', host: 'other' }, { name: 'b', finalizers: [] }));
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'A', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    let down = true;
    const query = hv.queryActiveGuests.bind(hv);
    let looks = 0;
    const stop = new AbortController();
    hv.queryActiveGuests = async () => {
      looks += 1;
      if (looks === 4) down = false; // the host comes back at the fourth look
      if (down) throw refused();
      return query();
    };
    const cache = createObservedCache();
    cache.set('default', 'A', anObservedGuest({ userid: 'A', power: 'off' }));
    const enqueued: ObjectKey[] = [];
    const sweeps: (string[] | undefined)[] = [];
    const guests = { list: () => [a, other], waitForSync: async () => true };
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests,
      enqueue: (key) => {
        enqueued.push(key);
        stop.abort();
      },
      observed: cache,
      periodMs: 30,
      outageGraceMs: 50,
      report: { store },
      onLook: async (_host, look) => void sweeps.push(look.directory),
    });
    await detector.start(stop.signal);
    // no reconcile runs here: the status the outage wrote is still there
    const seen = [await store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'a' })];
    expect(seen[0]?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'HostUnreachable' });
    expect(seen[0]?.spec).toEqual(a.spec); // no spec touched
    expect(cache.get('default', 'A')).toBeUndefined(); // nothing from before the outage is reported again
    expect(enqueued).toEqual([{ namespace: 'default', name: 'a' }]); // only the guest of the host that came back
    expect((await store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'b' }))?.status).toBeUndefined();
    const host = await store.get<ZHost>('ZHost', { name: 'default' });
    expect(unreachableSince(host)).toBeUndefined();
    expect(host?.status?.conditions?.find((c) => c.type === SMAPI_REACHABLE)).toMatchObject({ status: 'True' });
    expect(host?.status?.guestCount).toBe(1); // the directory is listed again after the outage
    expect(sweeps).toEqual([['A']]); // the orphan sweeper rode only on the look that got an answer
  });

  it('takes a host that accepts the connection but never replies for unreachable once the look\'s bound is over', async () => {
    const store = createEmbeddedStore();
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1alpha1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } });
    const a = await store.create(aGuest({ userid: 'A' }, { name: 'a', finalizers: [] }));
    const hv = new FakeHypervisor();
    // as the SMAPI client does with a connected socket that stays silent: nothing until the call is aborted
    hv.queryActiveGuests = (opts?: CallOptions) => new Promise<Map<string, PowerState>>((_resolve, reject) => {
      opts?.signal?.addEventListener('abort', () => reject(new HypervisorError('Image_Status_Query', -110, 0, 'call aborted')), { once: true });
    });
    const stop = new AbortController();
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => [a], waitForSync: async () => true },
      enqueue: () => undefined,
      observed: createObservedCache(),
      periodMs: 30,
      outageGraceMs: 0, // the look's bound alone decides: lookBoundMs(0)
      report: { store },
    });
    const running = detector.start(stop.signal);
    const readyOf = async () => (await store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'a' }))?.status?.conditions?.find((c) => c.type === 'Ready');
    for (let i = 0; i < 200 && (await readyOf())?.status !== 'Unknown'; i++) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;
    expect(await readyOf()).toMatchObject({ status: 'Unknown', reason: 'HostUnreachable' });
    expect(unreachableSince(await store.get<ZHost>('ZHost', { name: 'default' }))).toBeDefined();
  });
});
