import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { registerOnce } from '../metrics.js';
import { silentLogger, type Logger } from '../log.js';
import { realClock, sleep, type Clock } from './clock.js';
import type { LeaderCallbacks, LeaderElector } from './manager.js';

/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules (reference §1.7):
 * - a lease held by another replica counts as expired only after leaseDuration has passed on OUR clock
 *   since we last saw it change (no trust in other replicas' clocks);
 * - the leader renews every retryPeriod; when no renewal has succeeded for renewDeadline (or another
 *   holder shows up) leadership is lost and the leader signal aborts;
 * - on a graceful stop the leader keeps renewing until its leader work has stopped, then releases the
 *   lease (empty holder, 1 s duration) so that the next replica takes over at once.
 */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** RFC 3339 with microseconds (Kubernetes MicroTime). */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface VersionedLease {
  record: LeaseRecord;
  resourceVersion: string;
}

/** The few Lease calls an elector makes; writes fail with ConflictError/AlreadyExistsError on a race. */
export interface LeaseApi {
  readonly description: string;
  get(signal: AbortSignal): Promise<VersionedLease | undefined>;
  create(record: LeaseRecord, signal: AbortSignal): Promise<VersionedLease>;
  update(lease: VersionedLease, signal: AbortSignal): Promise<VersionedLease>;
}

export interface LeaseElectorOptions {
  lease: LeaseApi;
  identity: string;
  /** defaults 15 s / 10 s / 2 s, as controller-runtime. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** release the lease on a graceful stop; default true. */
  releaseOnCancel?: boolean;
  /** resolves once the leader work has stopped; the lease is renewed until then, released after. */
  leaderWorkStopped?: () => Promise<void>;
  /** leader_election_master_status{name} is registered here when given. */
  registry?: Registry;
  clock?: Clock;
  log?: Logger;
  random?: () => number;
}

export interface LeaseLeaderElector extends LeaderElector {
  readonly identity: string;
  isLeader(): boolean;
}

type Attempt = 'acquired' | 'held' | 'failed';

const JITTER = 1.2;

/** The pod name (downward API) or the host name, plus randomness so that a restarted pod is a new holder. */
export function defaultLeaderIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.POD_NAME || hostname()}_${randomBytes(4).toString('hex')}`;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits (the apiserver rejects three). */
export function microTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

export function createLeaseLeaderElector(o: LeaseElectorOptions): LeaseLeaderElector {
  const clock = o.clock ?? realClock;
  const log = (o.log ?? silentLogger()).child({ component: 'leader-election', lease: o.lease.description, identity: o.identity });
  const leaseDurationMs = o.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = o.retryPeriodMs ?? 2_000;
  const random = o.random ?? Math.random;
  const status = o.registry ? masterStatusGauge(o.registry) : undefined;
  const durationSeconds = Math.max(1, Math.ceil(leaseDurationMs / 1000));
  let observed: { resourceVersion: string; at: number } | undefined;
  /** the lease as our own last write left it: the next renewal sends it back without reading it first */
  let ours: VersionedLease | undefined;
  let leading = false;

  function setLeading(value: boolean): void {
    leading = value;
    status?.set({ name: o.lease.description }, value ? 1 : 0);
  }

  /** Records a write of ours that succeeded; the lease is ours. */
  function wrote(record: LeaseRecord, written: VersionedLease, now: number): 'acquired' {
    observed = { resourceVersion: written.resourceVersion, at: now };
    ours = { record, resourceVersion: written.resourceVersion };
    return 'acquired';
  }

  /**
   * client-go's fast path: the holder renews what it wrote last, one write and no read (at the bench's
   * 1 s retry period a read per second of idle CPU). Any failure (another writer changed the lease:
   * a conflict) falls back to reading it.
   */
  async function renewOptimistically(now: number, signal: AbortSignal): Promise<Attempt | undefined> {
    const last = ours;
    ours = undefined;
    if (!last) return undefined;
    const record: LeaseRecord = { ...last.record, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) };
    try {
      return wrote(record, await o.lease.update({ record, resourceVersion: last.resourceVersion }, signal), now);
    } catch (err) {
      if (signal.aborted) throw err;
      log.debug({ err }, 'optimistic renewal failed; reading the lease');
      return undefined;
    }
  }

  /** One look at the lease: take it if free or expired, renew it if ours. */
  async function tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const now = clock.now();
    const fast = await renewOptimistically(now, signal);
    if (fast) return fast;
    const current = await o.lease.get(signal);
    if (!current) {
      const record: LeaseRecord = { holderIdentity: o.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
      return wrote(record, await o.lease.create(record, signal), now);
    }
    if (observed?.resourceVersion !== current.resourceVersion) observed = { resourceVersion: current.resourceVersion, at: now };
    const holder = current.record.holderIdentity;
    const heldForMs = (current.record.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder && holder !== o.identity && observed.at + heldForMs > now) return 'held';
    const record: LeaseRecord = holder === o.identity
      ? { ...current.record, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) }
      : { holderIdentity: o.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: (current.record.leaseTransitions ?? 0) + 1 };
    return wrote(record, await o.lease.update({ record, resourceVersion: current.resourceVersion }, signal), now);
  }

  /** tryAcquireOrRenew bounded in time: a hung apiserver call must not outlive the renew deadline. */
  async function attempt(boundMs: number): Promise<Attempt> {
    const call = new AbortController();
    const timer = clock.setTimeout(() => call.abort(), Math.max(1, boundMs));
    try {
      return await Promise.race([
        tryAcquireOrRenew(call.signal),
        new Promise<Attempt>((resolve) => call.signal.addEventListener('abort', () => resolve('failed'), { once: true })),
      ]);
    } catch (err) {
      log.debug({ err }, 'lease attempt failed');
      return 'failed';
    } finally {
      clock.clearTimeout(timer);
      call.abort();
    }
  }

  /** true once the lease is ours (possibly just as the signal aborted: the caller then releases it). */
  async function acquire(signal: AbortSignal): Promise<boolean> {
    let lastHolderLogged: string | undefined;
    while (!signal.aborted) {
      const outcome = await attempt(renewDeadlineMs);
      if (outcome === 'acquired') return true;
      if (outcome === 'held' && lastHolderLogged !== observed?.resourceVersion) {
        lastHolderLogged = observed?.resourceVersion;
        log.debug('lease held by another replica; waiting');
      }
      await sleep(retryPeriodMs * (1 + random() * JITTER), signal, clock);
    }
    return false;
  }

  /** Renews until the signal aborts ('stopped') or a renewal misses its deadline ('lost'). */
  async function renew(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    let lastRenew = clock.now();
    while (!signal.aborted) {
      await sleep(retryPeriodMs, signal, clock);
      if (signal.aborted) break;
      const outcome = await attempt(lastRenew + renewDeadlineMs - clock.now());
      if (outcome === 'acquired') lastRenew = clock.now();
      else if (outcome === 'held') return 'lost';
      else if (clock.now() - lastRenew >= renewDeadlineMs) return 'lost';
    }
    return 'stopped';
  }

  /** Keeps the lease while the leader work winds down, so that no other replica starts early. */
  async function holdUntilStopped(): Promise<void> {
    if (!o.leaderWorkStopped) return;
    const workDone = new AbortController();
    const stopped = o.leaderWorkStopped().finally(() => workDone.abort());
    const outcome = await renew(workDone.signal);
    if (outcome === 'lost') log.warn('lease lost while the leader work was stopping');
    await stopped;
  }

  async function release(): Promise<void> {
    ours = undefined;
    const call = AbortSignal.timeout(renewDeadlineMs);
    try {
      const current = await o.lease.get(call);
      if (!current || current.record.holderIdentity !== o.identity) return;
      const now = microTime(clock.now());
      const record: LeaseRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: current.record.leaseTransitions };
      await o.lease.update({ record, resourceVersion: current.resourceVersion }, call);
      log.info('lease released');
    } catch (err) {
      log.warn({ err }, 'could not release the lease; the next replica waits for it to expire');
    }
  }

  return {
    identity: o.identity,
    isLeader: () => leading,
    async run(callbacks: LeaderCallbacks, signal: AbortSignal): Promise<void> {
      setLeading(false);
      log.info({ leaseDurationMs, renewDeadlineMs, retryPeriodMs }, 'campaigning for the lease');
      if (!(await acquire(signal))) return;
      if (signal.aborted) {
        await release();
        return;
      }
      const leader = new AbortController();
      setLeading(true);
      log.info('lease acquired');
      callbacks.onStartedLeading(leader.signal);
      const outcome = await renew(signal);
      leader.abort();
      setLeading(false);
      if (outcome === 'lost') {
        log.error('leadership lost: the lease was not renewed in time');
        callbacks.onStoppedLeading();
        return;
      }
      if (o.releaseOnCancel ?? true) {
        await holdUntilStopped();
        await release();
      }
      callbacks.onStoppedLeading();
    },
  };
}

/** client-go's name: Kubernetes dashboards read it. The sharding reports one series per host Lease. */
export function masterStatusGauge(registry: Registry): Gauge<'name'> {
  return registerOnce(registry, 'leader_election_master_status', (registers) => new Gauge({
    name: 'leader_election_master_status', help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master', labelNames: ['name'], registers,
  }));
}
