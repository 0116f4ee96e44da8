import type { ZGuest } from '../../../../src/api/index.js';
import { createZGuestDriftDetector, findDrifted } from '../../../../src/controllers/zguest/drift.js';
import { createObservedCache } from '../../../../src/controllers/zguest/observed-cache.js';
import type { PowerState } from '../../../../src/hypervisor/port.js';
import type { ObjectKey } from '../../../../src/store/port.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const withPower = (name: string, userid: string, powerState?: string, host?: string): ZGuest =>
  aGuest({ userid, ...(host ? { host } : {}) }, { name, status: powerState ? { observedGeneration: 1, powerState } : undefined });

describe('drift detection', () => {
  const guests = [withPower('a', 'A', 'on'), withPower('b', 'B', 'off'), withPower('c', 'C', 'on'), withPower('d', 'D'), withPower('e', 'E', 'on', 'other')];

  it('finds guests whose recorded power differs from one batched query of their host', () => {
    const active = new Map<string, PowerState>([['A', 'on'], ['B', 'on']]);
    expect(findDrifted(guests, 'default', active, createObservedCache()).map((g) => g.metadata.name)).toEqual(['b', 'c']);
  });

  it('also finds a held observation that disagrees, and guests missing from the directory', () => {
    const cache = createObservedCache();
    cache.set('default', 'B', anObservedGuest({ userid: 'B', power: 'on' }));
    const active = new Map<string, PowerState>([['A', 'on'], ['C', 'on']]);
    expect(findDrifted(guests, 'default', active, cache).map((g) => g.metadata.name)).toEqual(['b']);
    expect(findDrifted(guests, 'default', active, createObservedCache(), new Set(['B', 'C'])).map((g) => g.metadata.name)).toEqual(['a']);
  });

  it('asks each host once per look, drops the drifted observations and enqueues only those guests', async () => {
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'A', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    await hv.createGuest({ userid: 'C', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    await hv.start('A');
    let queries = 0;
    const queryActive = hv.queryActiveGuests.bind(hv);
    hv.queryActiveGuests = async () => {
      queries += 1;
      return queryActive();
    };
    const cache = createObservedCache();
    cache.set('default', 'C', anObservedGuest({ userid: 'C', power: 'on' }));
    const enqueued: ObjectKey[] = [];
    const stop = new AbortController();
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: (n) => (n === 'default' ? hv : undefined) },
      guests: { list: () => guests.filter((g) => g.metadata.name !== 'b'), waitForSync: async () => true },
      enqueue: (key) => {
        enqueued.push(key);
        stop.abort();
      },
      observed: cache,
      periodMs: 60_000,
    });
    await detector.start(stop.signal);
    expect(queries).toBe(1);
    expect(enqueued).toEqual([{ namespace: 'default', name: 'c' }]);
    expect(cache.get('default', 'C')).toBeUndefined();
  });

  it('lists the directory on the first look, then again only once the host\'s settled guests change (idle: power query alone)', async () => {
    const hv = new FakeHypervisor();
    const ready = (name: string, uid: string): ZGuest => aGuest({ userid: name.toUpperCase() }, {
      name, uid, status: { observedGeneration: 1, powerState: 'off', conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    const known = [ready('a', 'uid-a')];
    const listings: number[] = [];
    let looks = 0;
    const stop = new AbortController();
    hv.queryActiveGuests = async () => {
      looks += 1;
      if (looks === 3) known.push(ready('b', 'uid-b')); // the operator's new guest settles during look 3
      if (looks === 7) stop.abort();
      return new Map<string, PowerState>();
    };
    const listDirectory = hv.listDirectory.bind(hv);
    hv.listDirectory = async () => {
      listings.push(looks);
      return listDirectory();
    };
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => known, waitForSync: async () => true },
      enqueue: () => undefined,
      observed: createObservedCache(),
      periodMs: 1,
    });
    await detector.start(stop.signal);
    expect(listings).toEqual([1, 4]);
  });

  it('judges no guest whose status moved while the host was answering (the answer may be older than that status)', async () => {
    const hv = new FakeHypervisor();
    const starting = aGuest({ userid: 'S' }, { name: 's', resourceVersion: '1', status: { observedGeneration: 1, powerState: 'off' } });
    const steady = aGuest({ userid: 'T' }, { name: 't', resourceVersion: '5', status: { observedGeneration: 1, powerState: 'on' } });
    let known = [starting, steady];
    const stop = new AbortController();
    // the look's answer was taken before S was started; meanwhile S's reconcile started it and wrote status
    hv.queryActiveGuests = async () => {
      known = [aGuest({ userid: 'S' }, { name: 's', resourceVersion: '2', status: { observedGeneration: 1, powerState: 'on' } }), steady];
      stop.abort();
      return new Map<string, PowerState>();
    };
    const enqueued: ObjectKey[] = [];
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => known, waitForSync: async () => true },
      enqueue: (key) => enqueued.push(key),
      observed: createObservedCache(),
      periodMs: 60_000,
    });
    await detector.start(stop.signal);
    // T said on and did not move: the host's off is drift; S is left to the next look
    expect(enqueued).toEqual([{ namespace: 'default', name: 't' }]);
  });
});
