/**
 * The orphan sweeper (issue 12): per host, guests carrying our owner mark whose ZGuest no longer
 * exists are reported (a Warning Event on the ZHost, the `zvm_orphaned_guests` gauge, and a fact that
 * the ZHost reconciler writes as status.orphanedGuests) and, only under the ZHost's `orphanPolicy: Delete` and after its grace
 * period, deleted with their disks. A guest without our mark is never touched.
 *
 * Cost: it rides on the drift detector's one batched power query per resync period (the active
 * guests come for free) and adds a directory listing (Image_Name_Query_DM) at most every
 * `scanIntervalMs`. The owner mark of an unclaimed userid is read once (one Image_Query_DM) and
 * remembered while the userid stays on the host, so a steady host costs no per-guest call.
 */
import type { Registry } from 'prom-client';
import type { ZGuest, ZHost } from '../../api/index.js';
import type { Hypervisor, HypervisorRegistry, PowerState } from '../../hypervisor/index.js';
import { silentLogger, type Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { StateStore } from '../../store/port.js';
import type { FactBoard } from '../kit/index.js';
import { orphanGauge } from '../metrics.js';
import { ownerUidOf } from './ownership.js';
import { claimedUserids, findOrphans, planOrphans, policyOf, sameRecords, type OrphanRecord } from './orphans.js';

export const DEFAULT_ORPHAN_SCAN_MS = 5 * 60_000;

export const OrphanEventReasons = {
  found: 'OrphanedGuest',
  deleted: 'OrphanDeleted',
  deleteFailed: 'OrphanDeleteFailed',
} as const;

export interface OrphanSweeperDeps {
  store: StateStore;
  hosts: HypervisorRegistry;
  /** every ZGuest (the informer cache) */
  guests: { list(): ZGuest[] };
  events: EventRecorder;
  registry: Registry;
  log?: Logger;
  clock?: () => Date;
  /** a directory listing at most this often per host; default 5 minutes */
  scanIntervalMs?: number;
  /** the records go here for the ZHost reconciler to write (kit/facts.ts); absent: kept only in this sweeper */
  facts?: FactBoard;
}

/** What the drift detector saw of a host in one look. */
export interface HostLook {
  active: Map<string, PowerState>;
  /** the directory's userids, when this look listed them */
  directory?: string[];
}

export interface OrphanSweeper {
  /** Called after each batched host query; never throws for a host problem (logged, next look retries). */
  observe(host: string, look: HostLook, signal: AbortSignal): Promise<void>;
}

interface HostMemory {
  directory: Set<string>;
  scannedAt: number;
  /** owner uid of each unclaimed userid's entry (undefined: no mark), read once */
  marks: Map<string, string | undefined>;
}

export function createOrphanSweeper(deps: OrphanSweeperDeps): OrphanSweeper {
  const log = (deps.log ?? silentLogger()).child({ component: 'orphan-sweeper' });
  const clock = deps.clock ?? (() => new Date());
  const scanIntervalMs = deps.scanIntervalMs ?? DEFAULT_ORPHAN_SCAN_MS;
  const gauge = orphanGauge(deps.registry);
  const memory = new Map<string, HostMemory>();
  const recorded = new Map<string, OrphanRecord[]>();

  async function directoryOf(host: string, hv: Hypervisor, look: HostLook, signal: AbortSignal): Promise<HostMemory> {
    let m = memory.get(host);
    const now = clock().getTime();
    const listing = look.directory ?? (!m || now - m.scannedAt >= scanIntervalMs ? await hv.listDirectory({ signal }) : undefined);
    if (!m) {
      m = { directory: new Set(), scannedAt: now, marks: new Map() };
      memory.set(host, m);
    }
    if (listing) {
      m.directory = new Set(listing.map((u) => u.toUpperCase()));
      m.scannedAt = now;
    }
    for (const userid of look.active.keys()) m.directory.add(userid.toUpperCase());
    return m;
  }

  /** Reads the mark of each unclaimed userid not read before; forgets userids gone from the host or claimed. */
  async function readMarks(m: HostMemory, hv: Hypervisor, claimed: Set<string>, signal: AbortSignal): Promise<void> {
    for (const userid of [...m.marks.keys()]) if (!m.directory.has(userid) || claimed.has(userid)) m.marks.delete(userid);
    for (const userid of m.directory) {
      if (claimed.has(userid) || m.marks.has(userid)) continue;
      const state = await hv.describeGuest(userid, { signal });
      if (!state) {
        m.directory.delete(userid);
        continue;
      }
      m.marks.set(userid, ownerUidOf(state));
    }
  }

  /** Deletes one orphan after checking again, on the host and in the store, that it still is one. */
  async function deleteOrphan(zhost: ZHost, hv: Hypervisor, record: OrphanRecord, signal: AbortSignal): Promise<boolean> {
    const state = await hv.describeGuest(record.userid, { signal });
    if (!state) return true;
    if (ownerUidOf(state) !== record.ownerUid) return false;
    const { items } = await deps.store.list<ZGuest>('ZGuest');
    if (findOrphans(new Map([[record.userid, record.ownerUid]]), items, zhost.metadata.name).length === 0) return false;
    try {
      await hv.deleteGuest(record.userid, { signal });
    } catch (err) {
      log.warn({ err, host: zhost.metadata.name, userid: record.userid }, 'could not delete an orphaned guest');
      deps.events.event(zhost, 'Warning', OrphanEventReasons.deleteFailed, `could not delete orphaned guest ${record.userid}: ${(err as Error).message}`);
      return false;
    }
    log.info({ host: zhost.metadata.name, userid: record.userid, ownerUid: record.ownerUid }, 'deleted an orphaned guest');
    deps.events.event(zhost, 'Normal', OrphanEventReasons.deleted, `deleted orphaned guest ${record.userid} and its disks (its ZGuest ${record.ownerUid} no longer exists; orphanPolicy Delete)`);
    return true;
  }

  function foundMessage(zhost: ZHost, r: OrphanRecord): string {
    const { policy, graceMs } = policyOf(zhost);
    const next = policy === 'Delete' ? `it will be deleted with its disks ${Math.round(graceMs / 1000)} s after ${r.since}` : 'orphanPolicy Report keeps it';
    return `guest ${r.userid} carries the owner mark of ZGuest ${r.ownerUid}, which no longer exists; ${next}`;
  }

  async function sweep(host: string, look: HostLook, signal: AbortSignal): Promise<void> {
    const hv = deps.hosts.forHost(host);
    const zhost = await deps.store.get<ZHost>('ZHost', { name: host });
    if (!hv || !zhost || zhost.metadata.deletionTimestamp) return;
    const m = await directoryOf(host, hv, look, signal);
    const guests = deps.guests.list();
    await readMarks(m, hv, claimedUserids(guests, host), signal);
    const now = clock();
    // after a restart the records the ZHost reconciler last wrote keep their grace periods
    const before = recorded.get(host) ?? zhost.status?.orphanedGuests ?? [];
    const plan = planOrphans(before, findOrphans(m.marks, guests, host), zhost, now);
    for (const r of plan.found) {
      log.warn({ host, userid: r.userid, ownerUid: r.ownerUid }, 'orphaned guest found');
      deps.events.event(zhost, 'Warning', OrphanEventReasons.found, foundMessage(zhost, r));
    }
    let records = plan.records;
    for (const r of plan.toDelete) {
      if (!(await deleteOrphan(zhost, hv, r, signal))) continue;
      records = records.filter((x) => x !== r);
      m.marks.delete(r.userid);
      m.directory.delete(r.userid);
    }
    gauge.set({ host }, records.length);
    if (!sameRecords(before, records) || !recorded.has(host)) {
      recorded.set(host, records);
      deps.facts?.recordHost(host, { orphanedGuests: records });
    }
  }

  return {
    async observe(host, look, signal) {
      try {
        await sweep(host, look, signal);
      } catch (err) {
        if (!signal.aborted) log.warn({ err, host }, 'orphan sweep failed; the next resync looks again');
      }
    },
  };
}
