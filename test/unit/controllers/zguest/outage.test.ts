import { SMAPI_REACHABLE, unreachableSince, type ZHost } from '../../../../src/api/index.js';
import { createFactBoard, type OutageFact } from '../../../../src/controllers/kit/facts.js';
import type { ResolvedZGuest } from '../../../../src/controllers/zguest/class.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { createZGuestDriftDetector } from '../../../../src/controllers/zguest/drift.js';
import { createObservedCache } from '../../../../src/controllers/zguest/observed-cache.js';
import { isNoAnswer, lookBoundMs, REACHABLE, stepReachability, unreachableMessage } from '../../../../src/controllers/zguest/outage.js';
import { computeZGuestStatus } from '../../../../src/controllers/zguest/status.js';
import { computeZHostStatus } from '../../../../src/controllers/zhost/reconciler.js';
import { HypervisorError } from '../../../../src/errors.js';
import type { CallOptions, PowerState } from '../../../../src/hypervisor/port.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import type { ObjectKey } from '../../../../src/store/port.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const GRACE = 10_000;

/** The ZGuest reconciler's status of a guest whose host has the outage fact (nothing read from the host). */
function unreachableGuestStatus(guest: ResolvedZGuest, outage: OutageFact, now: Date) {
  const plan = { steps: [], ownership: 'owned' as const, problems: [] };
  return computeZGuestStatus({ guest, hostName: 'default', observed: undefined, plan, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now, outage });
}
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
    const outage = { since: '2026-01-02T00:00:00.000Z', message: unreachableMessage('default', Date.parse('2026-01-02T00:00:00Z')) };
    const status = unreachableGuestStatus(guest, outage, new Date('2026-01-02T00:00:10Z'));
    expect(status.phase).toBe('Unknown');
    expect(status.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'Unknown', reason: 'HostUnreachable', lastTransitionTime: '2026-01-02T00:00:10.000Z' });
    expect(status.conditions?.[0]?.message).toContain('has not answered since 2026-01-02T00:00:00.000Z');
    expect(status.conditions?.[1]).toMatchObject({ type: 'Synced', status: 'True' });
    expect(status.powerState).toBe('on'); // as last seen
    const again = { ...guest, status };
    expect(unreachableGuestStatus(again, outage, new Date('2026-01-02T00:01:00Z'))).toEqual(status); // nothing to write again
  });

  it('the ZHost reconciler turns Ready and SmapiReachable False on an outage fact, and SmapiReachable True after it', () => {
    const host: ZHost = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default', generation: 1 }, spec: { simulated: true } };
    const observed = { connected: true, smapiHealthy: true };
    const during = computeZHostStatus(host, observed, new Date('2026-01-02T00:00:10Z'), { outage: { since: '2026-01-02T00:00:00.000Z', message: 'm' } });
    expect(during.phase).toBe('Unavailable');
    expect(during.conditions?.filter((c) => c.type !== 'SmapiHealthy').map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', 'False', 'HostUnreachable'], [SMAPI_REACHABLE, 'False', 'HostUnreachable']]);
    expect(unreachableSince({ status: during })).toBe('2026-01-02T00:00:10.000Z');
    const after = computeZHostStatus({ ...host, status: during }, observed, new Date('2026-01-02T00:01:00Z'), {});
    expect(after.conditions?.filter((c) => c.type !== 'SmapiHealthy').map((c) => [c.type, c.status])).toEqual([['Ready', 'True'], [SMAPI_REACHABLE, 'True']]);
    expect(unreachableSince({ status: after })).toBeUndefined();
    // a host never out has no SmapiReachable condition
    expect(computeZHostStatus(host, observed, new Date(), {}).conditions?.map((c) => c.type)).toEqual(['Ready', 'SmapiHealthy']);
  });
});

describe('the drift detector during an outage', () => {
  it('marks the guests of a host that stops answering Unknown after the grace, and reconciles them once it answers', async () => {
    const store = createEmbeddedStore();
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } });
    const a = await store.create(aGuest({ userid: 'A' }, { name: 'a', finalizers: [] }));
    await store.patchStatus('ZGuest', { namespace: 'default', name: 'a' }, { observedGeneration: 1, phase: 'Stopped', powerState: 'off' });
    const other = await store.create(aGuest({ userid: 'B', host: 'other' }, { name: 'b', finalizers: [] }));
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'A', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    let down = true;
    const query = hv.queryActiveGuests.bind(hv);
    const stop = new AbortController();
    const facts = createFactBoard();
    hv.queryActiveGuests = async () => {
      // the host comes back at the first look after the outage was declared; counting looks instead raced
      // the grace (a timer may fire a millisecond before Date.now() says the grace is over: CI, no outage)
      if (facts.host('default').outage !== undefined) down = false;
      if (down) throw refused();
      return query();
    };
    const cache = createObservedCache();
    cache.set('default', 'A', anObservedGuest({ userid: 'A', power: 'off' }));
    const enqueued: ObjectKey[] = [];
    const sweeps: (string[] | undefined)[] = [];
    const outages: (string | undefined)[] = [];
    facts.onHostChange((host) => outages.push(facts.host(host).outage?.since));
    const guests = { list: () => [a, other], waitForSync: async () => true };
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests,
      enqueue: (key) => {
        enqueued.push(key);
        if (enqueued.length === 2) stop.abort();
      },
      observed: cache,
      periodMs: 30,
      outageGraceMs: 50,
      report: { facts },
      onLook: async (_host, look) => void sweeps.push(look.directory),
    });
    await detector.start(stop.signal);
    // the outage was recorded (once, when it began), then ended; no status was written by the detector
    expect(new Set(outages.filter((o) => o !== undefined)).size).toBe(1);
    expect(outages.at(-1)).toBeUndefined();
    expect((await store.get<ZHost>('ZHost', { name: 'default' }))?.status).toBeUndefined();
    expect((await store.get('ZGuest', { namespace: 'default', name: 'a' }))?.status).toMatchObject({ phase: 'Stopped' });
    expect(cache.get('default', 'A')).toBeUndefined(); // nothing from before the outage is reported again
    // the guest of the host is woken when the outage begins and when it ends; the other host's is not
    expect(enqueued).toEqual([{ namespace: 'default', name: 'a' }, { namespace: 'default', name: 'a' }]);
    expect(facts.host('default').guestCount).toBe(1); // the directory is listed again after the outage
    expect(sweeps).toEqual([['A']]); // the orphan sweeper rode only on the look that got an answer
  });

  it('takes a host that accepts the connection but never replies for unreachable once the look\'s bound is over', async () => {
    const store = createEmbeddedStore();
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } });
    const a = await store.create(aGuest({ userid: 'A' }, { name: 'a', finalizers: [] }));
    const hv = new FakeHypervisor();
    // as the SMAPI client does with a connected socket that stays silent: nothing until the call is aborted
    hv.queryActiveGuests = (opts?: CallOptions) => new Promise<Map<string, PowerState>>((_resolve, reject) => {
      opts?.signal?.addEventListener('abort', () => reject(new HypervisorError('Image_Status_Query', -110, 0, 'call aborted')), { once: true });
    });
    const stop = new AbortController();
    const facts = createFactBoard();
    const woken: string[] = [];
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => [a], waitForSync: async () => true },
      enqueue: (key) => void woken.push(key.name),
      observed: createObservedCache(),
      periodMs: 30,
      outageGraceMs: 0, // the look's bound alone decides: lookBoundMs(0)
      report: { facts },
    });
    const running = detector.start(stop.signal);
    for (let i = 0; i < 200 && !facts.host('default').outage; i++) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;
    expect(facts.host('default').outage).toMatchObject({ message: expect.stringContaining('has not answered since') });
    expect(woken).toContain('a');
  });
});
