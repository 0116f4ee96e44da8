import { hostOf, type ZGuest } from '../../api/index.js';
import type { Hypervisor, PowerState } from '../../hypervisor/index.js';
import { HypervisorError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { sleep } from '../../runtime/clock.js';
import type { DriftMetrics } from '../metrics.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Runnable } from '../../runtime/runnable.js';
import { keyOf, keyString, type ObjectKey } from '../../store/port.js';
import type { FactBoard } from '../kit/index.js';
import { desiredUserid } from './definition.js';
import { driftMessage, DriftReasons, type HostFinding } from './drift-status.js';
import type { ObservedCache } from './observed-cache.js';
import { DEFAULT_OUTAGE_GRACE_MS, isNoAnswer, lookBoundMs, REACHABLE, stepReachability, type Reachability } from './outage.js';
import { createOutageReporter } from './outage-report.js';
import { isSettled } from './predicates.js';

/** smcli's "no reply in time" (smapi/messages.ts TRANSPORT_RC.timeout): a look past its bound */
const NO_REPLY_RC = -103;

/**
 * The directory is listed at most this often besides the first look, so that ZHost status.guestCount
 * (and the orphan sweeper) follow the host while an idle host costs one call per period: with the
 * default 15 s period, 1 + 15/300 = 1.05 calls per period in the long run (issue 38).
 */
export const DIRECTORY_PERIOD_MS = 5 * 60_000;

/** Where a detected drift is reported before the repair; all optional so the detector also runs bare. */
export interface DriftReporting {
  /** drifts, outages and guest counts are recorded here for the reconcilers that write status (kit/facts.ts) */
  facts?: FactBoard;
  events?: EventRecorder;
  metrics?: DriftMetrics;
}

export interface DriftDetectorDeps {
  hosts: { hosts(): string[]; forHost(name: string): Hypervisor | undefined };
  /** every ZGuest (the informer cache); waitForSync gates the first look */
  guests: { list(): ZGuest[]; waitForSync(signal?: AbortSignal): Promise<boolean> };
  enqueue(key: ObjectKey): void;
  observed: ObservedCache;
  periodMs: number;
  log?: Logger;
  report?: DriftReporting;
  /** told what each look saw (the orphan sweeper rides on this query instead of making its own) */
  onLook?: (host: string, look: { active: Map<string, PowerState>; directory?: string[] }, signal: AbortSignal) => Promise<void>;
  /** how long a host may give no answer before its guests say Unknown; default DEFAULT_OUTAGE_GRACE_MS */
  outageGraceMs?: number;
  /** how often the directory is listed besides the first look; default DIRECTORY_PERIOD_MS */
  directoryPeriodMs?: number;
}

/** The guest is at the resourceVersion `versions` (by keyString) recorded for it. */
function unchangedSince(versions: Map<string, string | undefined>, guest: ZGuest): boolean {
  const key = keyString(keyOf(guest));
  return versions.has(key) && versions.get(key) === guest.metadata.resourceVersion;
}

/** A guest whose recorded power (status, or the held observation) is not what the host reports. */
export function findDrifted(guests: ZGuest[], host: string, active: Map<string, PowerState>, observed: ObservedCache, directory?: Set<string>): ZGuest[] {
  return guests.filter((g) => {
    if (hostOf(g) !== host || g.status?.powerState === undefined) return false;
    const userid = desiredUserid(g);
    if (directory && !directory.has(userid)) return true;
    const power = active.get(userid) ?? 'off';
    const held = observed.get(host, userid)?.state.power;
    return g.status.powerState !== power || (held !== undefined && held !== power);
  });
}

/**
 * Drift detection without a read per guest: once per period and host, one batched power query
 * (Image_Status_Query '*' through queryActiveGuests) is compared with what status and the
 * observed cache say; only guests that differ lose their held observation and are reconciled.
 * The first look after start also lists the directory (Image_Name_Query_DM), so a guest deleted
 * behind the controller's back while it was down is found; so does the first look after a host's
 * outage (outage.ts). Once per DIRECTORY_PERIOD_MS, and once the host's settled guests differ from the
 * last listing's (the operator created or deleted some), a look lists it for ZHost status.guestCount (and
 * the orphan sweeper) alone. Other directory edits made outside
 * the operator (a disk removed by hand) are seen at the guest's next spec change.
 */
export function createZGuestDriftDetector(deps: DriftDetectorDeps): Runnable {
  const log = (deps.log ?? silentLogger()).child({ component: 'drift-detector', kind: 'ZGuest' });

  /**
   * The look's host calls, bounded by the grace (lookBoundMs): a host that takes the connection but
   * never replies is no answer once the bound is over. What rides on the look (the sweeper) is not bounded.
   */
  async function askHost(hv: Hypervisor, withDirectory: boolean, signal: AbortSignal): Promise<{ active: Map<string, PowerState>; listing?: string[] }> {
    const bound = AbortSignal.timeout(lookBound);
    const opts = { signal: AbortSignal.any([signal, bound]) };
    try {
      const active = await hv.queryActiveGuests(opts);
      return { active, listing: withDirectory ? await hv.listDirectory(opts) : undefined };
    } catch (err) {
      if (!bound.aborted || signal.aborted) throw err;
      throw new HypervisorError('drift look', NO_REPLY_RC, 0, `no answer within ${lookBound} ms`, { retryable: true, cause: err });
    }
  }

  /**
   * `first`: the first look after start or after failed looks: the directory listing also finds
   * guests deleted meanwhile. Once per directory period it is listed for the counts alone.
   */
  async function lookAt(hostName: string, first: boolean, count: boolean, signal: AbortSignal): Promise<void> {
    const hv = deps.hosts.forHost(hostName);
    if (!hv) return;
    // the operator's own creates and deletes change the count too: list once the host's settled guests differ
    const settled = settledSignature(hostName);
    const asked = versionsOn(hostName);
    const { active, listing } = await askHost(hv, first || count || settled !== listedWith.get(hostName), signal);
    if (listing) listedWith.set(hostName, settled);
    const directory = listing && first ? new Set(listing.map((u) => u.toUpperCase())) : undefined;
    reportCounts(hostName, active.size, listing?.length);
    // a guest whose status moved while the host answered was just observed by its reconcile: the
    // answer may predate that change (a guest started meanwhile), and is no drift (the next look judges it)
    const drifted = findDrifted(deps.guests.list().filter((g) => unchangedSince(asked, g)), hostName, active, deps.observed, directory);
    for (const g of drifted) {
      const userid = desiredUserid(g);
      deps.observed.invalidate(hostName, userid);
      // a guest in the middle of a change the controller made is not drift, just a look due
      if (isSettled(g)) reportDrift(g, hostName, directory && !directory.has(userid) ? 'missing' : (active.get(userid) ?? 'off'));
      deps.enqueue(keyOf(g));
    }
    if (drifted.length > 0) log.info({ host: hostName, guests: drifted.length }, 'host drifted from status; reconciling those guests');
    await deps.onLook?.(hostName, { active, directory: listing }, signal);
  }

  /** The resourceVersion of each guest of the host as the look starts. */
  function versionsOn(hostName: string): Map<string, string | undefined> {
    return new Map(deps.guests.list().filter((g) => hostOf(g) === hostName).map((g) => [keyString(keyOf(g)), g.metadata.resourceVersion]));
  }

  /** The host's settled guests when its directory was last listed (a change means the count may have moved). */
  const listedWith = new Map<string, string>();

  function settledSignature(hostName: string): string {
    return deps.guests.list().filter((g) => hostOf(g) === hostName && isSettled(g)).map((g) => g.metadata.uid ?? g.metadata.name).sort().join(',');
  }

  /**
   * ZHost status.activeGuests (and guestCount when this look listed the directory) from the same
   * batched answers (no extra host call): recorded as facts, which the ZHost reconciler writes when they change.
   */
  function reportCounts(hostName: string, active: number, defined: number | undefined): void {
    deps.report?.facts?.recordHost(hostName, { activeGuests: active, ...(defined === undefined ? {} : { guestCount: defined }) });
  }

  /** Fact, Event and counter first, so that what the host did shows (the reconcile reports the fact) before the controller undoes it. */
  function reportDrift(guest: ZGuest, hostName: string, finding: HostFinding): void {
    const r = deps.report ?? {};
    const message = driftMessage(guest, finding);
    r.metrics?.detected(hostName);
    r.events?.event(guest, 'Warning', DriftReasons.detected, message);
    r.facts?.recordDrift(keyString(keyOf(guest)), { finding, message, uid: guest.metadata.uid });
  }

  const graceMs = deps.outageGraceMs ?? DEFAULT_OUTAGE_GRACE_MS;
  const lookBound = lookBoundMs(graceMs);
  const reachability = new Map<string, Reachability>();
  const outages = createOutageReporter({ facts: deps.report?.facts, observed: deps.observed, enqueue: deps.enqueue, guests: deps.guests, log });

  /** One look per host; returns how soon a host failing within its grace wants the next one. */
  async function tick(first: boolean, count: boolean, signal: AbortSignal): Promise<number | undefined> {
    let soonest: number | undefined;
    for (const hostName of deps.hosts.hosts()) {
      const prev = reachability.get(hostName) ?? REACHABLE;
      let outcome: 'answered' | 'noAnswer' = 'answered';
      const startedAt = Date.now();
      try {
        // after a failed look the directory is listed again: guest counts and guests gone meanwhile
        await lookAt(hostName, first || prev.failingSince !== undefined, count, signal);
      } catch (err) {
        if (signal.aborted) return undefined;
        log.warn({ err, host: hostName }, 'drift query failed');
        if (isNoAnswer(err)) outcome = 'noAnswer';
      }
      const step = stepReachability(prev, outcome, Date.now(), graceMs, startedAt);
      reachability.set(hostName, step.next);
      outages.report(hostName, step);
      if (step.lookAgainMs !== undefined) soonest = Math.min(soonest ?? step.lookAgainMs, step.lookAgainMs);
    }
    return soonest;
  }

  return {
    name: 'drift-detector/ZGuest',
    needsLeaderElection: true,
    async start(signal) {
      if (!(await deps.guests.waitForSync(signal))) return;
      const directoryPeriodMs = deps.directoryPeriodMs ?? DIRECTORY_PERIOD_MS;
      let listedAt = Number.NEGATIVE_INFINITY;
      for (let look = 0; !signal.aborted; look++) {
        const now = Date.now();
        const count = now - listedAt >= directoryPeriodMs;
        if (count) listedAt = now;
        const soon = await tick(look === 0, count, signal);
        await sleep(Math.min(deps.periodMs, soon ?? deps.periodMs), signal);
      }
    },
  };
}
