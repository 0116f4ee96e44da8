import { expandFcpDevices, fcpDevicesProblem, type FcpUsage, type ZFcpTemplate, type ZFcpTemplateStatus, type ZVolume } from '../../api/index.js';
import { ConflictError, HypervisorError } from '../../errors.js';
import { type FcpDevice, type HypervisorRegistry, queryPchids } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import type { EventRecorder } from '../../runtime/events.js';
import { mergeConditions, sameStatus, warnOnNewProblem, type ConditionInput } from '../conditions.js';
import { HOST_NOT_FOUND, HYPERVISOR_ERROR, lookupHost, reconcileLogger } from '../kit/index.js';
import { computeLedger, computeLedgerRows, connectionsOn, declaredFrom } from '../kit/fcp-ledger/index.js';

export interface ZFcpTemplateReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  log: Logger;
  /** a Warning Event for each new problem (unknown host, invalid devices) */
  events?: EventRecorder;
  clock?: () => Date;
  /** how often the FCP states are synced with the host (default 5 min) */
  syncMs?: number;
  /** the volumes whose connections the ledgers count (default: listed from the store) */
  volumes?: () => ZVolume[] | Promise<ZVolume[]>;
}

/** Event and condition reason of an fcpDevices value that names no valid device range. */
const INVALID_FCP_DEVICES = 'InvalidFcpDevices';

interface Verdict {
  devices?: FcpDevice[];
  problem?: { reason: string; message: string };
  lastError?: ZFcpTemplateStatus['lastError'];
}

/** Ready/Synced from the outcome of one sync. */
export function computeTemplateConditions(v: Verdict): ConditionInput[] {
  if (v.problem) {
    return [
      { type: 'Ready', status: 'False', reason: v.problem.reason, message: v.problem.message },
      { type: 'Synced', status: 'False', reason: v.problem.reason, message: v.problem.message },
    ];
  }
  return [
    { type: 'Ready', status: 'True', reason: 'Synced', message: 'FCP devices are known to the host' },
    { type: 'Synced', status: 'True', reason: 'Synced', message: 'FCP states synced with the host' },
  ];
}

/** The host's FCP inventory is read again when it is due, the devices changed, or the last read failed. */
export function isSyncDue(t: ZFcpTemplate, paths: string[][] | undefined, now: Date, syncMs: number): boolean {
  const last = t.status?.lastSyncTime;
  if (!last || t.status?.phase !== 'Ready' || now.getTime() - Date.parse(last) >= syncMs) return true;
  const listed = (t.status?.fcps ?? []).map((r) => r.fcp).join();
  return paths !== undefined && paths.flat().join() !== listed;
}

/** The usage an earlier release (or `migrate feilong`) kept in status, to declare in spec once; undefined when spec declares it. */
export function planAdoption(t: ZFcpTemplate): ReturnType<typeof declaredFrom> | undefined {
  if (t.spec.fcpUsage !== undefined) return undefined;
  const kept = declaredFrom(t.status?.fcps ?? []);
  return kept.length > 0 ? kept : undefined;
}

/**
 * The one author of a template's status (docs/architecture.md §7.6): its ledger rows follow its fcpDevices
 * and the host's FCP inventory (System_WWPN_Query, PCHIDs through the management guest), and their usage
 * is derived from what spec.fcpUsage declares and the connections the volumes hold (kit/fcp-ledger/derive.ts).
 */
export function createZFcpTemplateReconciler(deps: ZFcpTemplateReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const syncMs = deps.syncMs ?? 5 * 60_000;
  const volumes = deps.volumes ?? (async () => (await deps.store.list<ZVolume>('ZVolume')).items);

  async function observe(t: ZFcpTemplate, log: Logger, signal: AbortSignal): Promise<Verdict> {
    const problem = fcpDevicesProblem(t.spec.fcpDevices ?? '');
    if (problem) return { problem: { reason: INVALID_FCP_DEVICES, message: problem } };
    const { hostName, hv } = lookupHost(deps.hypervisors, t);
    if (!hv?.fcp) return { problem: { reason: HOST_NOT_FOUND, message: `ZHost ${hostName} is not known or has no FCP support` } };
    try {
      const devices = await hv.fcp.queryFcps({ signal });
      // PCHIDs come from the management guest, as feilong reads them (its zvmutils.get_pchid: vmcp or lschp)
      const pchids = hv.mgmt ? await queryPchids(hv.mgmt, devices.map((d) => d.chpid), log, { signal }) : new Map<string, string>();
      return { devices: devices.map((d) => (pchids.has(d.chpid) ? { ...d, pchid: pchids.get(d.chpid) } : d)) };
    } catch (err) {
      if (!(err instanceof HypervisorError) || err.retryable) throw err;
      return { problem: { reason: HYPERVISOR_ERROR, message: err.message }, lastError: err.toFields() };
    }
  }

  /** The status from this run's sync (none: the host's view and verdict stay as last read) and the usage. */
  async function computeStatus(t: ZFcpTemplate, verdict: Verdict | undefined, now: string): Promise<ZFcpTemplateStatus> {
    const paths = fcpDevicesProblem(t.spec.fcpDevices ?? '') ? undefined : expandFcpDevices(t.spec.fcpDevices ?? '');
    const hostRows: FcpUsage[] = paths ? computeLedgerRows(t.status?.fcps ?? [], paths, verdict?.devices) : t.status?.fcps ?? [];
    const fcps = computeLedger(hostRows, t.spec.fcpUsage ?? [], connectionsOn(await volumes(), t, new Set(hostRows.map((r) => r.fcp))));
    const status: ZFcpTemplateStatus = {
      ...t.status,
      observedGeneration: t.metadata.generation,
      fcps,
      pathCount: paths?.length ?? t.status?.pathCount ?? 0,
    };
    if (!verdict) return status;
    Object.assign(status, {
      conditions: mergeConditions(t.status?.conditions, computeTemplateConditions(verdict), now, t.metadata.generation),
      phase: verdict.problem ? 'Failed' : 'Ready',
      lastError: verdict.lastError,
      ...(verdict.devices ? { lastSyncTime: now } : {}),
    });
    if (!status.lastError) delete status.lastError;
    return status;
  }

  return {
    kind: 'ZFcpTemplate',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const t = await deps.store.get<ZFcpTemplate>('ZFcpTemplate', key);
      if (!t || t.metadata.deletionTimestamp) return done();
      const log = reconcileLogger(deps.log, 'ZFcpTemplate', key);
      const adopted = planAdoption(t);
      if (adopted) {
        // once: the spec change this makes brings the template back, with its usage declared where it now lives
        await deps.store.patch('ZFcpTemplate', key, { spec: { fcpUsage: adopted } }, { resourceVersion: t.metadata.resourceVersion });
        log.info({ template: key.name, fcps: adopted.length }, 'FCP usage kept in status adopted into spec.fcpUsage');
        return requeueAfter(1);
      }
      const now = clock();
      const paths = fcpDevicesProblem(t.spec.fcpDevices ?? '') ? undefined : expandFcpDevices(t.spec.fcpDevices ?? '');
      const verdict = isSyncDue(t, paths, now, syncMs) ? await observe(t, log, signal) : undefined;
      const status = await computeStatus(t, verdict, now.toISOString());
      const unchanged = sameStatus({ ...t.status, lastSyncTime: undefined }, { ...status, lastSyncTime: undefined });
      if (!unchanged) {
        try {
          await deps.store.updateStatus<ZFcpTemplate>({ ...t, status });
        } catch (err) {
          // a concurrent change (a declared reservation): the event it caused brings us back with fresh input
          if (err instanceof ConflictError) return requeueAfter(1);
          throw err;
        }
      }
      if (verdict) warnOnNewProblem(deps.events, t, t.status?.conditions, status.conditions, [HYPERVISOR_ERROR]);
      log.debug({ template: key.name, phase: status.phase }, 'reconciled');
      const synced = Date.parse(status.lastSyncTime ?? '') || now.getTime();
      return requeueAfter(Math.max(1, synced + syncMs - now.getTime()));
    },
  };
}
