import { setMaxListeners } from 'node:events';
import { ZvmError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { withBound } from '../../util/time-bound.js';
import { realClock, sleep, type Clock } from '../clock.js';
import { microTime, type LeaseRecord } from '../leader-election.js';
import { createLeaseObserver } from './lease-observer.js';
import type { ShardLease, ShardLeaseStore } from './lease-store.js';
import { planShards, type HostLeaseView } from './plan.js';
import type { ShardMetrics } from './metrics.js';

/**
 * Per-host sharding on Leases (issue 15), client-go's leader election applied to every host:
 * - each replica renews a heartbeat Lease; the live replicas are those whose heartbeat has not expired;
 * - every retryPeriod a replica renews the host Leases it holds, then plans (plan.ts) and releases its
 *   surplus or takes free hosts up to its fair share;
 * - fencing: a host counts as held only until renewDeadline after the start of its last successful
 *   renewal. Others take it over no earlier than leaseDuration after they saw that renewal, which is
 *   later, so the holder has stopped (gate() refuses, the host's work is aborted) before anyone else starts;
 * - stop (SIGTERM) stops the hosts' work, releases their Leases (empty holder) and deletes the
 *   heartbeat, so the other replicas take the hosts over at their next round instead of after expiry.
 */
export interface ShardCoordinatorOptions {
  leases: ShardLeaseStore;
  identity: string;
  /** the ZHost names, and whether that list is complete yet (no planning on a partial list) */
  hosts: () => string[];
  hostsSynced?: () => boolean;
  /** runs a host's controllers until the signal aborts; resolves once they have stopped */
  work: (host: string, signal: AbortSignal) => Promise<void>;
  /** defaults 15 s / 10 s / 2 s, as controller-runtime */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  metrics?: ShardMetrics;
  clock?: Clock;
  log?: Logger;
  random?: () => number;
}

export interface ShardCoordinator {
  readonly identity: string;
  /** Campaigns until the signal aborts, then hands every host over; never rejects. */
  run(signal: AbortSignal): Promise<void>;
  /** true while this replica may act on the host (held, and its renew deadline has not passed) */
  holds(host: string): boolean;
  /** throws FencedError unless holds(host): call it right before every write to the host */
  gate(host: string): void;
  held(): string[];
}

/** A write refused because this replica does not (or no longer) hold the host's Lease. */
export class FencedError extends ZvmError {
  constructor(host: string, identity: string) {
    super('UNAVAILABLE', `replica ${identity} does not hold the Lease of host ${host}: write refused`);
  }
}

interface Holding {
  lease: ShardLease;
  /** the host is ours until this time unless renewed */
  deadline: number;
  timer: unknown;
  work: AbortController;
  done: Promise<void>;
}

export function createShardCoordinator(o: ShardCoordinatorOptions): ShardCoordinator {
  const clock = o.clock ?? realClock;
  const log = (o.log ?? silentLogger()).child({ component: 'sharding', identity: o.identity });
  const leaseDurationMs = o.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = o.retryPeriodMs ?? 2_000;
  const durationSeconds = Math.max(1, Math.ceil(leaseDurationMs / 1000));
  const random = o.random ?? Math.random;
  const observer = createLeaseObserver(leaseDurationMs);
  const holdings = new Map<string, Holding>();
  let heartbeat: ShardLease | undefined;

  const holds = (host: string): boolean => {
    const h = holdings.get(host);
    return h !== undefined && clock.now() < h.deadline;
  };

  function renewedRecord(lease: ShardLease, now: number): LeaseRecord {
    return { ...lease.record, holderIdentity: o.identity, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) };
  }

  /** A call bounded in time, even one that ignores its signal: a hung apiserver must not hold a round past the renew deadline. */
  async function bounded<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withBound(Math.max(1, ms), (signal) => Promise.race([
      call(signal),
      new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new ZvmError('TIMEOUT', 'Lease call timed out')), { once: true })),
    ]));
  }

  function armDeadline(host: string, h: Holding): void {
    clock.clearTimeout(h.timer);
    h.timer = clock.setTimeout(() => {
      if (holdings.get(host) === h && clock.now() >= h.deadline) lose(host, 'renew deadline passed');
    }, h.deadline - clock.now());
  }

  /** The Lease is no longer ours (or no longer surely ours): stop at once, write nothing. */
  function lose(host: string, why: string): void {
    const h = holdings.get(host);
    if (!h) return;
    holdings.delete(host);
    clock.clearTimeout(h.timer);
    h.work.abort();
    o.metrics?.transition(host, 'lost');
    o.metrics?.held(holdings.size);
    log.warn({ host, why }, 'host lost');
  }

  function startWork(host: string, lease: ShardLease, deadline: number): void {
    const work = new AbortController();
    setMaxListeners(0, work.signal); // all of a host's controllers and their waits share it: not a leak
    const h: Holding = { lease, deadline, timer: undefined, work, done: Promise.resolve() };
    holdings.set(host, h);
    armDeadline(host, h);
    h.done = Promise.resolve()
      .then(() => o.work(host, work.signal))
      .catch((err: unknown) => {
        log.error({ err, host }, 'host work failed; the host is handed over');
        if (holdings.get(host) === h) void release(host);
      });
    o.metrics?.held(holdings.size);
  }

  async function renewHost(host: string, listed: ShardLease | undefined): Promise<void> {
    const h = holdings.get(host);
    if (!h) return;
    if (listed && listed.record.holderIdentity !== o.identity) return lose(host, `taken by ${listed.record.holderIdentity || 'nobody'}`);
    const base = listed ?? h.lease;
    const started = clock.now();
    try {
      const renewed = await bounded(h.deadline - started, (s) => o.leases.update(base, renewedRecord(base, started), s));
      if (holdings.get(host) !== h) return;
      h.lease = renewed;
      h.deadline = started + renewDeadlineMs;
      armDeadline(host, h);
    } catch (err) {
      log.debug({ err, host }, 'host lease renewal failed');
      if (clock.now() >= h.deadline) lose(host, 'renew deadline passed');
    }
  }

  async function acquire(host: string, listed: ShardLease | undefined): Promise<void> {
    const now = clock.now();
    const record: LeaseRecord = {
      holderIdentity: o.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now),
      leaseTransitions: listed ? (listed.record.leaseTransitions ?? 0) + 1 : 0,
    };
    try {
      const lease = await bounded(renewDeadlineMs, (s) => (listed ? o.leases.update(listed, record, s) : o.leases.create('host', host, record, s)));
      startWork(host, lease, now + renewDeadlineMs);
      o.metrics?.transition(host, 'acquired');
      log.info({ host, from: listed?.record.holderIdentity || undefined }, 'host acquired');
    } catch (err) {
      log.debug({ err, host }, 'could not acquire the host (another replica was faster?)');
    }
  }

  /** Stops the host's work, then gives its Lease up so that the next holder need not wait for expiry. */
  async function release(host: string): Promise<void> {
    const h = holdings.get(host);
    if (!h) return;
    clock.clearTimeout(h.timer);
    h.work.abort();
    // the work stops while the Lease is still ours; past the deadline the gate refuses anyway
    await Promise.race([h.done, sleep(Math.max(0, h.deadline - clock.now()))]);
    if (holdings.get(host) !== h) return;
    holdings.delete(host);
    o.metrics?.held(holdings.size);
    if (clock.now() >= h.deadline) return lose(host, 'renew deadline passed while stopping');
    const now = microTime(clock.now());
    try {
      await bounded(renewDeadlineMs, (s) => o.leases.update(h.lease, { ...h.lease.record, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now }, s));
      o.metrics?.transition(host, 'released');
      log.info({ host }, 'host released');
    } catch (err) {
      log.warn({ err, host }, 'could not release the host Lease; it expires instead');
    }
  }

  async function beat(listed: ShardLease | undefined): Promise<void> {
    const now = clock.now();
    const base = listed ?? heartbeat;
    const record: LeaseRecord = { holderIdentity: o.identity, leaseDurationSeconds: durationSeconds, acquireTime: base?.record.acquireTime ?? microTime(now), renewTime: microTime(now) };
    try {
      heartbeat = await bounded(renewDeadlineMs, (s) => (base ? o.leases.update(base, record, s) : o.leases.create('replica', o.identity, record, s)));
    } catch (err) {
      heartbeat = undefined;
      log.debug({ err }, 'heartbeat failed');
    }
  }

  /** Heartbeats of replicas dead for a long time are removed, so that Lease lists stay short. */
  async function collectDead(dead: ShardLease[], now: number): Promise<void> {
    for (const lease of dead) {
      if (!observer.expired(lease.name, now - 2 * leaseDurationMs)) continue;
      await bounded(renewDeadlineMs, (s) => o.leases.delete(lease, s)).catch((err: unknown) => log.debug({ err, lease: lease.name }, 'could not delete a dead heartbeat'));
    }
  }

  async function round(): Promise<void> {
    const all = await bounded(renewDeadlineMs, (s) => o.leases.list(s));
    const now = clock.now();
    observer.observe(all, now);
    const replicas = all.filter((l) => l.role === 'replica');
    const hostLeases = new Map(all.filter((l) => l.role === 'host').map((l) => [l.subject, l] as const));
    // together: a slow heartbeat (an apiserver short of CPU) must not push the hosts' renewals past their deadline
    await Promise.all([beat(replicas.find((l) => l.subject === o.identity)), ...[...holdings.keys()].map((host) => renewHost(host, hostLeases.get(host)))]);
    if (o.hostsSynced && !o.hostsSynced()) return;
    const live = replicas.filter((l) => l.record.holderIdentity && !observer.expired(l.name, now)).map((l) => l.subject);
    const views = new Map<string, HostLeaseView>([...hostLeases].map(([host, l]) => [host, { holder: l.record.holderIdentity, expired: observer.expired(l.name, now) }]));
    const hosts = o.hosts();
    const plan = planShards({ self: o.identity, liveReplicas: live, hosts, held: [...holdings.keys()].filter(holds), leases: views });
    o.metrics?.replicas(new Set([...live, o.identity]).size, plan.share, hosts.length);
    await Promise.all(plan.release.map(release));
    await Promise.all(plan.acquire.map((host) => acquire(host, hostLeases.get(host))));
    await collectDead(replicas.filter((l) => l.subject !== o.identity && observer.expired(l.name, now)), now);
  }

  async function handOver(): Promise<void> {
    await Promise.all([...holdings.keys()].map(release));
    const own = heartbeat;
    if (own) await bounded(renewDeadlineMs, (s) => o.leases.delete(own, s)).catch((err: unknown) => log.warn({ err }, 'could not delete the heartbeat; it expires instead'));
    log.info('every host handed over');
  }

  return {
    identity: o.identity,
    async run(signal) {
      log.info({ leaseDurationMs, renewDeadlineMs, retryPeriodMs }, 'sharding hosts on Leases');
      while (!signal.aborted) {
        try {
          await round();
        } catch (err) {
          log.warn({ err }, 'sharding round failed');
        }
        await sleep(retryPeriodMs * (0.8 + random() * 0.4), signal, clock);
      }
      await handOver();
    },
    holds,
    gate(host) {
      if (!holds(host)) throw new FencedError(host, o.identity);
    },
    held: () => [...holdings.keys()].filter(holds),
  };
}
