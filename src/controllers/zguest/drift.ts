import type { ZGuest } from '../../api/index.js';
import type { Hypervisor, PowerState } from '../../hypervisor/port.js';
import { silentLogger, type Logger } from '../../log.js';
import { sleep } from '../../runtime/clock.js';
import type { DriftMetrics } from '../metrics.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Runnable } from '../../runtime/runnable.js';
import { keyOf, type ObjectKey, type StateStore } from '../../store/port.js';
import { desiredUserid } from './definition.js';
import { driftDetectedStatus, driftMessage, DriftReasons, type HostFinding } from './drift-status.js';
import type { ObservedCache } from './observed-cache.js';
import { hostOf } from './ownership.js';
import { isSettled } from './predicates.js';

/** Where a detected drift is reported before the repair; all optional so the detector also runs bare. */
export interface DriftReporting {
  store?: StateStore;
  events?: EventRecorder;
  metrics?: DriftMetrics;
  clock?: () => Date;
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
 * behind the controller's back while it was down is found. Other directory edits made outside
 * the operator (a disk removed by hand) are seen at the guest's next spec change.
 */
export function createZGuestDriftDetector(deps: DriftDetectorDeps): Runnable {
  const log = (deps.log ?? silentLogger()).child({ component: 'drift-detector', kind: 'ZGuest' });

  async function lookAt(hostName: string, first: boolean, signal: AbortSignal): Promise<void> {
    const hv = deps.hosts.forHost(hostName);
    if (!hv) return;
    const active = await hv.queryActiveGuests({ signal });
    const listing = first ? await hv.listDirectory({ signal }) : undefined;
    const directory = listing ? new Set(listing.map((u) => u.toUpperCase())) : undefined;
    await reportActiveCount(hostName, active.size);
    const drifted = findDrifted(deps.guests.list(), hostName, active, deps.observed, directory);
    for (const g of drifted) {
      const userid = desiredUserid(g);
      deps.observed.invalidate(hostName, userid);
      // a guest in the middle of a change the controller made is not drift, just a look due
      if (isSettled(g)) await reportDrift(g, hostName, directory && !directory.has(userid) ? 'missing' : (active.get(userid) ?? 'off'));
      deps.enqueue(keyOf(g));
    }
    if (drifted.length > 0) log.info({ host: hostName, guests: drifted.length }, 'host drifted from status; reconciling those guests');
    await deps.onLook?.(hostName, { active, directory: listing }, signal);
  }

  const activeCounts = new Map<string, number>();

  /** ZHost status.activeGuests from the same batched answer (no extra host call), written when it changes. */
  async function reportActiveCount(hostName: string, count: number): Promise<void> {
    const store = deps.report?.store;
    if (!store || activeCounts.get(hostName) === count) return;
    try {
      await store.patchStatus('ZHost', { name: hostName }, { activeGuests: count });
      activeCounts.set(hostName, count);
    } catch (err) {
      log.debug({ err, host: hostName }, 'ZHost active guest count not written'); // tried again next period
    }
  }

  /** Status, Event and counter first, so that what the host did shows before the controller undoes it. */
  async function reportDrift(guest: ZGuest, hostName: string, finding: HostFinding): Promise<void> {
    const r = deps.report ?? {};
    const status = driftDetectedStatus(guest, finding, (r.clock ?? (() => new Date()))());
    r.metrics?.detected(hostName);
    r.events?.event(guest, 'Warning', DriftReasons.detected, driftMessage(guest, finding));
    try {
      await r.store?.patchStatus('ZGuest', keyOf(guest), status, { resourceVersion: guest.metadata.resourceVersion });
    } catch (err) {
      // changed meanwhile (a reconcile wrote first): that reconcile reports what it saw
      log.debug({ err, guest: guest.metadata.name }, 'drift status not written');
    }
  }

  async function tick(first: boolean, signal: AbortSignal): Promise<void> {
    for (const hostName of deps.hosts.hosts()) {
      try {
        await lookAt(hostName, first, signal);
      } catch (err) {
        // an unreachable host is the reconciles' business; the next period looks again
        if (!signal.aborted) log.warn({ err, host: hostName }, 'drift query failed');
      }
    }
  }

  return {
    name: 'drift-detector/ZGuest',
    needsLeaderElection: true,
    async start(signal) {
      if (!(await deps.guests.waitForSync(signal))) return;
      for (let first = true; !signal.aborted; first = false) {
        await tick(first, signal);
        await sleep(deps.periodMs, signal);
      }
    },
  };
}
