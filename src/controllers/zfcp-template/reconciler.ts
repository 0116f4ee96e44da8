import { expandFcpDevices, fcpDevicesProblem, type ZFcpTemplate, type ZFcpTemplateStatus } from '../../api/index.js';
import { ConflictError, HypervisorError } from '../../errors.js';
import { type FcpDevice, type HypervisorRegistry, queryPchids } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import type { EventRecorder } from '../../runtime/events.js';
import { mergeConditions, sameStatus, warnOnNewProblem, type ConditionInput } from '../conditions.js';
import { HOST_NOT_FOUND, HYPERVISOR_ERROR, lookupHost, reconcileLogger } from '../kit/index.js';
import { computeLedgerRows } from '../kit/fcp-ledger/index.js';

export interface ZFcpTemplateReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  log: Logger;
  /** a Warning Event for each new problem (unknown host, invalid devices) */
  events?: EventRecorder;
  clock?: () => Date;
  /** how often the FCP states are synced with the host (default 5 min) */
  syncMs?: number;
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

/**
 * Keeps a template's ledger rows in line with its fcpDevices and the host's FCP inventory
 * (System_WWPN_Query, PCHIDs through the management guest). Usage (assigner, reserved, connections) is never changed here.
 */
export function createZFcpTemplateReconciler(deps: ZFcpTemplateReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const syncMs = deps.syncMs ?? 5 * 60_000;

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

  return {
    kind: 'ZFcpTemplate',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const t = await deps.store.get<ZFcpTemplate>('ZFcpTemplate', key);
      if (!t || t.metadata.deletionTimestamp) return done();
      const log = reconcileLogger(deps.log, 'ZFcpTemplate', key);
      const verdict = await observe(t, log, signal);
      const paths = verdict.problem?.reason === INVALID_FCP_DEVICES ? undefined : expandFcpDevices(t.spec.fcpDevices ?? '');
      const now = clock().toISOString();
      const status: ZFcpTemplateStatus = {
        ...t.status,
        observedGeneration: t.metadata.generation,
        conditions: mergeConditions(t.status?.conditions, computeTemplateConditions(verdict), now, t.metadata.generation),
        phase: verdict.problem ? 'Failed' : 'Ready',
        fcps: paths ? computeLedgerRows(t.status?.fcps ?? [], paths, verdict.devices) : t.status?.fcps ?? [],
        pathCount: paths?.length ?? t.status?.pathCount ?? 0,
        lastError: verdict.lastError,
        ...(verdict.devices ? { lastSyncTime: now } : {}),
      };
      if (!status.lastError) delete status.lastError;
      const unchanged = sameStatus({ ...t.status, lastSyncTime: undefined }, { ...status, lastSyncTime: undefined });
      if (!unchanged) {
        try {
          await deps.store.updateStatus<ZFcpTemplate>({ ...t, status });
        } catch (err) {
          // a concurrent ledger change: the event it caused brings us back with fresh rows
          if (err instanceof ConflictError) return requeueAfter(1);
          throw err;
        }
      }
      warnOnNewProblem(deps.events, t, t.status?.conditions, status.conditions, [HYPERVISOR_ERROR]);
      log.debug({ template: key.name, phase: status.phase }, 'reconciled');
      return requeueAfter(syncMs);
    },
  };
}
