import { HOST_FINALIZER, HOST_UNREACHABLE, SMAPI_REACHABLE, type ZHost, type ZHostStatus } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import { type HostConnection, type HostSummary, type Hypervisor, type HypervisorRegistry, toFeilongHostInfo } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import { findCondition, mergeConditions, type ConditionInput } from '../conditions.js';
import { addFinalizer, HYPERVISOR_ERROR, reconcileLogger, removeFinalizer, writeStatusIfChanged, type FactBoard, type HostFacts } from '../kit/index.js';
import type { EventRecorder } from '../../runtime/events.js';
import { countDependents, GUESTS_REMAINING, planHostDeletion, type HostDeletionStep } from './deletion.js';
import { observeHostKey, recordSecurityEvents, withSecurityStatus } from './security.js';

export interface ZHostReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  log: Logger;
  /** Warning Events for a refused SSH host key and plain-TCP SMAPI */
  events?: EventRecorder;
  clock?: () => Date;
  /** how often status.smapiHealthy is brought up to date (from client counters: no host call) */
  refreshMs?: number;
  /** how often host facts are read again when the ZHost names no resyncSeconds; default one day */
  factsRefreshMs?: number;
  /** while a deletion is held, how often the resources still on the host are counted again; default 5 s */
  holdRecheckMs?: number;
  /** what the drift detector, the orphan sweeper and the shard coordinator saw of each host (kit/facts.ts) */
  facts?: FactBoard;
}

export interface HostObservation {
  summary?: HostSummary;
  guestCount?: number;
  smapiHealthy?: boolean;
  failure?: HypervisorError;
  connected: boolean;
  connection?: HostConnection;
}

/** The same words whether or not this run read the host facts (a stable Ready message). */
function answersMessage(version: string | undefined): string {
  return version ? `z/VM ${version} answers` : 'the host answers';
}

/** What the SIMULATED and ENDPOINT columns show, for every kind of host: what the connection reaches, else the spec. */
export function endpointOf(host: ZHost, connection?: HostConnection): Pick<ZHostStatus, 'simulated' | 'endpoint'> {
  if (connection) return { ...connection };
  if (host.spec.simulated) return { simulated: true, endpoint: 'built-in simulator' };
  const smapi = host.spec.smapi;
  if (!smapi) return { simulated: false };
  return { simulated: false, endpoint: `${smapi.tls ? 'smapi+tls' : 'smapi'}://${smapi.host}:${smapi.port ?? 44444}` };
}

/** The SmapiReachable condition: False while the outage fact lasts; True once one ended; absent on a host never out. */
function reachableCondition(previous: ZHostStatus, outage: HostFacts['outage']): ConditionInput | undefined {
  if (outage) return { type: SMAPI_REACHABLE, status: 'False', reason: HOST_UNREACHABLE, message: outage.message };
  if (!findCondition(previous.conditions, SMAPI_REACHABLE)) return undefined;
  return { type: SMAPI_REACHABLE, status: 'True', reason: 'SmapiAnswers', message: 'the host\'s SMAPI answers' };
}

/** Pure: ZHost status from one observation of the host and what the observers beside the controller saw of it (the one place its Ready and phase are decided). */
export function computeZHostStatus(host: ZHost, o: HostObservation, now: Date, facts: HostFacts = {}): ZHostStatus {
  const previous = host.status ?? {};
  const { outage } = facts;
  const ready = o.connected && !o.failure && o.smapiHealthy !== false && !outage;
  const reason = !o.connected ? 'HostNotConnected' : outage ? HOST_UNREACHABLE : o.failure ? HYPERVISOR_ERROR : o.smapiHealthy === false ? 'SmapiUnhealthy' : 'Ready';
  const message = !o.connected ? 'no hypervisor connection is registered for this host'
    : outage ? outage.message
      : o.failure ? `${o.failure.fn} rc ${o.failure.rc} rs ${o.failure.rs}: ${o.failure.message}`
        : o.smapiHealthy === false ? 'SMAPI calls keep failing' : answersMessage(o.summary?.version ?? previous.hypervisorVersion);
  const conditions: ConditionInput[] = [
    { type: 'Ready', status: ready ? 'True' : 'False', reason, message },
    { type: 'SmapiHealthy', status: o.smapiHealthy === undefined ? 'Unknown' : o.smapiHealthy ? 'True' : 'False', reason: o.smapiHealthy === false ? 'ContinuousFailures' : 'Counters', message: 'from the hypervisor client counters' },
    ...[reachableCondition(previous, outage)].filter((c): c is ConditionInput => c !== undefined),
  ];
  const status: ZHostStatus = {
    ...previous,
    observedGeneration: host.metadata.generation,
    phase: ready ? 'Ready' : 'Unavailable',
    lastError: o.failure ? o.failure.toFields() : undefined,
    smapiHealthy: o.smapiHealthy,
    ...endpointOf(host, o.connection),
    ...observedBeside(facts),
  };
  if (o.summary) {
    status.hypervisorVersion = o.summary.version;
    status.hostname = o.summary.systemName;
    status.info = toFeilongHostInfo(o.summary, { disk_total: 0, disk_used: 0, disk_available: 0 }) as Record<string, unknown>;
    delete status.info.disk_total;
    delete status.info.disk_used;
    delete status.info.disk_available;
  }
  if (o.guestCount !== undefined) status.guestCount = o.guestCount; // this run's own read is the newest
  if (o.summary || o.guestCount !== undefined) status.factsRefreshedAt = now.toISOString();
  status.conditions = mergeConditions(previous.conditions, conditions, now.toISOString(), host.metadata.generation);
  return JSON.parse(JSON.stringify(status)) as ZHostStatus;
}

/** The counts, orphans and holder the observers recorded (kit/facts.ts); what none recorded stays as last written. */
function observedBeside(facts: HostFacts): Partial<ZHostStatus> {
  const { activeGuests, guestCount, orphanedGuests, heldBy } = facts;
  return Object.fromEntries(Object.entries({ activeGuests, guestCount, orphanedGuests, heldBy }).filter(([, v]) => v !== undefined));
}

/**
 * Mirrors host information and SMAPI health into ZHost.status. Host facts (one batched query set:
 * host summary + directory names) are read when the host appears or its spec changes, and then once
 * per facts period (a day by default): they rarely change, and GET /host reads them live anyway.
 * Between those reads the periodic refresh only copies the client's health counters, so an idle
 * host costs no call here; guest drift detection is the one batched query per resync period.
 */
export function createZHostReconciler(deps: ZHostReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const refreshMs = deps.refreshMs ?? 60_000;
  const factsRefreshMs = deps.factsRefreshMs ?? 24 * 3_600_000;
  const holdRecheckMs = deps.holdRecheckMs ?? 5_000;

  function factsAreFresh(host: ZHost, now: Date): boolean {
    const s = host.status;
    if (!s?.factsRefreshedAt || s.observedGeneration !== host.metadata.generation || s.lastError) return false;
    const period = host.spec.resyncSeconds ? host.spec.resyncSeconds * 1000 : factsRefreshMs;
    return now.getTime() - Date.parse(s.factsRefreshedAt) < period;
  }

  async function observe(hv: Hypervisor, signal: AbortSignal): Promise<HostObservation> {
    try {
      const [summary, names] = await Promise.all([
        hv.hostQueries ? hv.hostQueries.describe({ signal }) : undefined,
        hv.listDirectory({ signal }),
      ]);
      return { connected: true, summary, guestCount: names.length, smapiHealthy: hv.health().healthy };
    } catch (err) {
      if (!(err instanceof HypervisorError) || err.retryable) throw err;
      return { connected: true, failure: err, smapiHealthy: hv.health().healthy };
    }
  }

  /** A deletion: held (condition, one Warning Event per new message) while resources remain, then released. */
  async function applyDeletionStep(host: ZHost, step: Exclude<HostDeletionStep, { op: 'addFinalizer' }>, log: Logger): Promise<Result> {
    if (step.op === 'release') {
      await removeFinalizer(deps.store, host, HOST_FINALIZER);
      log.info('no resource names the host any more: ZHost released');
      return done();
    }
    const now = clock().toISOString();
    const wasHeld = host.status?.conditions?.some((c) => c.type === GUESTS_REMAINING && c.status === 'True' && c.message === step.message);
    const condition: ConditionInput = { type: GUESTS_REMAINING, status: 'True', reason: GUESTS_REMAINING, message: step.message };
    const status: ZHostStatus = { ...host.status, conditions: mergeConditions(host.status?.conditions, [condition], now, host.metadata.generation) };
    await writeStatusIfChanged(deps.store, host, status);
    if (!wasHeld) deps.events?.event(host, 'Warning', GUESTS_REMAINING, step.message);
    return requeueAfter(holdRecheckMs);
  }

  return {
    kind: 'ZHost',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const read = await deps.store.get<ZHost>('ZHost', key);
      if (!read) return done();
      const log = reconcileLogger(deps.log, 'ZHost', key);
      const deleting = Boolean(read.metadata.deletionTimestamp);
      const step = planHostDeletion(read, deleting ? await countDependents(deps.store, read.metadata.name) : undefined);
      if (step?.op === 'hold' || step?.op === 'release') return applyDeletionStep(read, step, log);
      if (deleting) return done();
      // the finalizer goes on first; the status is then written onto what that write returned
      const host = step ? await addFinalizer(deps.store, read, HOST_FINALIZER) : read;
      const hv = deps.hypervisors.forHost(host.metadata.name);
      const now = clock();
      const facts = deps.facts?.host(host.metadata.name) ?? {};
      // during an outage the host is not asked: its status says so from the fact alone
      const observed: HostObservation = !hv ? { connected: false }
        : factsAreFresh(host, now) || facts.outage ? { connected: true, smapiHealthy: hv.health().healthy }
          : await observe(hv, signal);
      const observation = hv?.connection ? { ...observed, connection: hv.connection } : observed;
      const hostKey = hv ? await observeHostKey(hv) : undefined;
      const status = withSecurityStatus(host, computeZHostStatus(host, observation, now, facts), hostKey, now);
      recordSecurityEvents(deps.events, host, status);
      if ((await writeStatusIfChanged(deps.store, host, status)) !== host) log.debug({ phase: status.phase }, 'host status updated');
      return requeueAfter(refreshMs);
    },
  };
}
