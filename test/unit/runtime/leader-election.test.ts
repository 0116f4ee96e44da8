import { Registry } from 'prom-client';
import { AlreadyExistsError, ConflictError, ZvmError } from '../../../src/errors.js';
import { createLeaseLeaderElector, microTime, type LeaseApi, type LeaseRecord, type LeaseLeaderElector, type VersionedLease } from '../../../src/runtime/leader-election.js';
import type { LeaderCallbacks } from '../../../src/runtime/manager.js';
import { createFakeClock, deferred, flush, type FakeClock } from './fake-clock.js';

/** An in-memory Lease with resourceVersion preconditions and switchable failures. */
function aFakeLease() {
  let stored: VersionedLease | undefined;
  let rv = 0;
  const state = { failing: false, hanging: false, writes: 0, reads: 0 };
  const bump = (record: LeaseRecord): VersionedLease => {
    rv += 1;
    stored = { record: { ...record }, resourceVersion: String(rv) };
    return stored;
  };
  const guard = async (signal: AbortSignal): Promise<void> => {
    if (state.failing) throw new ZvmError('UNAVAILABLE', 'apiserver down');
    if (state.hanging) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  };
  const api: LeaseApi = {
    description: 'ns/lease',
    async get(signal) {
      await guard(signal);
      state.reads += 1;
      return stored && { record: { ...stored.record }, resourceVersion: stored.resourceVersion };
    },
    async create(record, signal) {
      await guard(signal);
      if (stored) throw new AlreadyExistsError('exists');
      state.writes += 1;
      return bump(record);
    },
    async update(lease, signal) {
      await guard(signal);
      if (!stored || stored.resourceVersion !== lease.resourceVersion) throw new ConflictError('stale');
      state.writes += 1;
      return bump(lease.record);
    },
  };
  return {
    api,
    state,
    current: () => stored?.record,
    /** Another replica writes the lease directly. */
    put: (record: LeaseRecord) => bump(record),
  };
}

function recorder() {
  const log: string[] = [];
  let leaderSignal: AbortSignal | undefined;
  const callbacks: LeaderCallbacks = {
    onStartedLeading(signal) {
      leaderSignal = signal;
      log.push('started');
    },
    onStoppedLeading() {
      log.push('stopped');
    },
  };
  return { callbacks, log, leaderSignal: () => leaderSignal };
}

/** Advances the fake clock in small steps, letting the elector's promises run between them. */
async function advance(clock: FakeClock, ms: number, step = 250): Promise<void> {
  for (let passed = 0; passed < ms; passed += step) {
    clock.advance(Math.min(step, ms - passed));
    await flush();
  }
}

interface Setup {
  clock: FakeClock;
  lease: ReturnType<typeof aFakeLease>;
  elector: LeaseLeaderElector;
  rec: ReturnType<typeof recorder>;
  stop: AbortController;
  done: Promise<void>;
}

function start(extra: Partial<Parameters<typeof createLeaseLeaderElector>[0]> = {}, lease = aFakeLease(), clock = createFakeClock(1_000_000)): Setup {
  const elector = createLeaseLeaderElector({ lease: lease.api, identity: 'me', clock, random: () => 0, ...extra });
  const rec = recorder();
  const stop = new AbortController();
  const done = elector.run(rec.callbacks, stop.signal);
  return { clock, lease, elector, rec, stop, done };
}

describe('Lease leader election', () => {
  it('creates a missing lease and starts leading with itself as holder', async () => {
    const s = start();
    await flush();
    expect(s.rec.log).toEqual(['started']);
    expect(s.elector.isLeader()).toBe(true);
    expect(s.lease.current()).toMatchObject({ holderIdentity: 'me', leaseDurationSeconds: 15, leaseTransitions: 0 });
    s.stop.abort();
    await s.done;
  });

  it('renews the lease every retry period while leading', async () => {
    const s = start();
    await flush();
    const first = s.lease.current()?.renewTime;
    await advance(s.clock, 2_000);
    expect(s.lease.current()?.renewTime).toBe(microTime(1_002_000));
    expect(s.lease.current()?.renewTime).not.toBe(first);
    expect(s.lease.state.writes).toBe(2);
    s.stop.abort();
    await s.done;
  });

  it('renews with one write and no read while the lease is as its last write left it', async () => {
    const s = start();
    await flush();
    const reads = s.lease.state.reads;
    await advance(s.clock, 6_000);
    expect(s.lease.state.writes).toBe(4);
    expect(s.lease.state.reads).toBe(reads);
    expect(s.lease.current()?.renewTime).toBe(microTime(1_006_000));
    s.stop.abort();
    await s.done;
  });

  it('reads the lease again when another writer changed it, and keeps it while it still names the leader', async () => {
    const s = start();
    await flush();
    const reads = s.lease.state.reads;
    s.lease.put({ ...s.lease.current(), leaseDurationSeconds: 15 });
    await advance(s.clock, 2_000);
    expect(s.lease.state.reads).toBe(reads + 1);
    expect(s.elector.isLeader()).toBe(true);
    expect(s.lease.current()).toMatchObject({ holderIdentity: 'me', renewTime: microTime(1_002_000) });
    await advance(s.clock, 2_000);
    expect(s.lease.state.reads).toBe(reads + 1);
    expect(s.rec.log).toEqual(['started']);
    s.stop.abort();
    await s.done;
  });

  it('waits while another holder keeps renewing, and never starts leading', async () => {
    const lease = aFakeLease();
    lease.put({ holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 3 });
    const s = start({}, lease);
    for (let i = 0; i < 20; i += 1) {
      await advance(s.clock, 2_000);
      lease.put({ ...lease.current(), renewTime: microTime(s.clock.now()) });
    }
    expect(s.rec.log).toEqual([]);
    expect(lease.current()?.holderIdentity).toBe('other');
    s.stop.abort();
    await s.done;
    expect(s.rec.log).toEqual([]);
  });

  it('takes over a lease that has not changed for its duration, counting a transition', async () => {
    const lease = aFakeLease();
    lease.put({ holderIdentity: 'dead', leaseDurationSeconds: 15, leaseTransitions: 3 });
    const s = start({}, lease);
    await advance(s.clock, 14_000);
    expect(s.rec.log).toEqual([]);
    await advance(s.clock, 4_000);
    expect(s.rec.log).toEqual(['started']);
    expect(lease.current()).toMatchObject({ holderIdentity: 'me', leaseTransitions: 4 });
    s.stop.abort();
    await s.done;
  });

  it('loses leadership when renewals keep failing past the renew deadline', async () => {
    const s = start();
    await flush();
    s.lease.state.failing = true;
    await advance(s.clock, 8_000);
    expect(s.rec.log).toEqual(['started']);
    expect(s.rec.leaderSignal()?.aborted).toBe(false);
    await advance(s.clock, 4_000);
    await s.done;
    expect(s.rec.log).toEqual(['started', 'stopped']);
    expect(s.rec.leaderSignal()?.aborted).toBe(true);
    expect(s.elector.isLeader()).toBe(false);
  });

  it('survives failed renewals that recover before the deadline', async () => {
    const s = start();
    await flush();
    s.lease.state.failing = true;
    await advance(s.clock, 6_000);
    s.lease.state.failing = false;
    await advance(s.clock, 20_000);
    expect(s.rec.log).toEqual(['started']);
    expect(s.elector.isLeader()).toBe(true);
    s.stop.abort();
    await s.done;
  });

  it('counts a renewal that hangs as failed once the deadline passes', async () => {
    const s = start();
    await flush();
    s.lease.state.hanging = true;
    await advance(s.clock, 13_000);
    await s.done;
    expect(s.rec.log).toEqual(['started', 'stopped']);
  });

  it('steps down at once when another holder has taken the lease', async () => {
    const s = start();
    await flush();
    s.lease.put({ holderIdentity: 'usurper', leaseDurationSeconds: 15 });
    await advance(s.clock, 2_000);
    await s.done;
    expect(s.rec.log).toEqual(['started', 'stopped']);
  });

  it('on a graceful stop keeps renewing until the leader work stops, then releases the lease', async () => {
    const workStopped = deferred();
    const s = start({ leaderWorkStopped: () => workStopped.promise });
    await flush();
    s.stop.abort();
    await flush();
    expect(s.rec.leaderSignal()?.aborted).toBe(true);
    await advance(s.clock, 30_000);
    expect(s.lease.current()?.holderIdentity).toBe('me');
    expect(s.lease.current()?.renewTime).toBe(microTime(1_030_000));
    workStopped.resolve();
    await advance(s.clock, 1_000);
    await s.done;
    expect(s.lease.current()).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    expect(s.rec.log).toEqual(['started', 'stopped']);
  });

  it('takes a released lease at once', async () => {
    const clock = createFakeClock(1_000_000);
    const lease = aFakeLease();
    const first = start({}, lease, clock);
    await flush();
    const second = start({ identity: 'next' }, lease, clock);
    await advance(clock, 4_000);
    expect(second.rec.log).toEqual([]);
    first.stop.abort();
    await first.done;
    await advance(clock, 3_000);
    expect(second.rec.log).toEqual(['started']);
    expect(lease.current()).toMatchObject({ holderIdentity: 'next', leaseTransitions: 1 });
    second.stop.abort();
    await second.done;
  });

  it('leaves the lease to expire when release is off', async () => {
    const s = start({ releaseOnCancel: false });
    await flush();
    s.stop.abort();
    await s.done;
    expect(s.lease.current()?.holderIdentity).toBe('me');
  });

  it('reports leader_election_master_status', async () => {
    const registry = new Registry();
    const s = start({ registry });
    await flush();
    expect(await registry.getSingleMetricAsString('leader_election_master_status')).toContain('leader_election_master_status{name="ns/lease"} 1');
    s.stop.abort();
    await s.done;
    expect(await registry.getSingleMetricAsString('leader_election_master_status')).toContain('leader_election_master_status{name="ns/lease"} 0');
  });

  it('formats MicroTime with six fractional digits', () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678000Z');
  });
});
