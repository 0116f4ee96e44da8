import type { ZHost } from '../api/index.js';
import { controllerRows, createControllerSet, type CapiOptions } from '../controllers/index.js';
import type { Logger } from '../log.js';
import {
  createLeaseLeaderElector, done, sleep,
  type EventRecorder, type Informer, type LeaseElectorOptions, type Reconciler, type Runnable, type RuntimeMetrics,
} from '../runtime/index.js';
import { HOST_LABEL } from '../runtime/sharding/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';

/**
 * The resources of a sharded deployment that name a host without a ZHost (a typo in spec.host, a
 * deleted host). Host controllers run only per held host Lease (sharded-operator.ts), so nobody
 * else would look at them. One replica — the holder of the "unassigned" Lease — runs the kinds' own
 * reconcilers on exactly these resources (label zvm.dev/host set, and not one of the ZHost names),
 * with no host to reach: each reports HostNotFound (Ready=False, a Warning Event) as standalone
 * mode does. The selection follows the ZHosts: when one appears or goes, the informers start over
 * with the new names; a resource whose host appeared leaves this selection and the host's holder
 * takes it.
 */
export interface UnassignedOperatorDeps {
  store: StateStore;
  /** every ZHost (the replica's cluster-wide ZHost informer) */
  hosts: Informer<ZHost>;
  events: EventRecorder;
  log: Logger;
  metrics?: RuntimeMetrics;
  /** a burst of ZHost changes restarts the selection once, this long after the last; default 1 s */
  settleMs?: number;
  /** --capi: the Cluster API provider's unassigned rows too (a ZVMMachine placed on a host without a ZHost) */
  capi?: CapiOptions;
  /** told the ZHost names each new selection leaves out */
  onSelection?: (known: readonly string[]) => void;
}

/** How the unassigned controllers are named in logs and in zvm_host_reconcile_total (no ZHost can be named so). */
export const UNASSIGNED = '(unassigned)';

/** Nothing to reach: every reconciler takes its host-not-found path. */
const NO_HOSTS = { forHost: () => undefined };

/** Resources labelled with a host that is not among `known`. */
export function unassignedSelector(known: readonly string[]): LabelSelector {
  return { [HOST_LABEL]: { notIn: [...known].sort() } };
}

/**
 * The kind's reconciler, skipped once the resource's host has a ZHost: until the selection starts
 * over, a retry must not write HostNotFound over what the host's holder wrote meanwhile.
 */
function whileUnassigned(deps: UnassignedOperatorDeps, inner: Reconciler): Reconciler {
  return {
    kind: inner.kind,
    async reconcile(key, signal) {
      const obj = await deps.store.get(inner.kind, key);
      const host = obj?.metadata.labels?.[HOST_LABEL];
      if (!obj || (host !== undefined && deps.hosts.get({ name: host }))) return done();
      return inner.reconcile(key, signal);
    },
  };
}

/** The informers and controllers of one selection: the registry's rows marked `unassigned` (pure wiring; nothing starts here). */
export function createUnassignedControllers(deps: UnassignedOperatorDeps, known: readonly string[]): Runnable[] {
  const log = deps.log.child({ host: UNASSIGNED });
  const guard = (r: Reconciler): Reconciler => whileUnassigned(deps, r);
  return createControllerSet(controllerRows(deps.capi !== undefined), {
    store: deps.store, hypervisors: NO_HOSTS, events: deps.events, log, metrics: deps.metrics, labelSelector: unassignedSelector(known), guard, capi: deps.capi,
  }).runnables;
}

const hostNames = (hosts: Informer<ZHost>): string[] => hosts.list().map((h) => h.metadata.name).sort();

/** Runs the selection of the current ZHost names until the signal aborts, starting over when the names change. */
export async function runUnassigned(deps: UnassignedOperatorDeps, signal: AbortSignal): Promise<void> {
  const log = deps.log.child({ host: UNASSIGNED });
  if (!(await deps.hosts.waitForSync(signal))) return;
  while (!signal.aborted) {
    const known = hostNames(deps.hosts);
    const round = new AbortController();
    const stop = (): void => round.abort();
    signal.addEventListener('abort', stop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const changed = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (hostNames(deps.hosts).join() !== known.join()) round.abort();
      }, deps.settleMs ?? 1000);
    };
    const unwatch = deps.hosts.addHandler({ onAdd: changed, onDelete: changed });
    log.info({ knownHosts: known.length }, 'watching resources whose host has no ZHost');
    deps.onSelection?.(known);
    let failed = false;
    try {
      // one failing part ends the round; the next one starts afresh
      await Promise.all(createUnassignedControllers(deps, known).map((r) => r.start(round.signal).catch((err: unknown) => {
        failed = true;
        log.warn({ err, runnable: r.name }, 'unassigned controllers failed; starting over');
        round.abort();
      })));
    } finally {
      unwatch();
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
    if (failed) await sleep(deps.settleMs ?? 1000, signal);
  }
}

/**
 * Campaigns for the "unassigned" Lease for as long as the signal lives and runs the unassigned
 * controllers while it holds it; a lost Lease stops them and the campaign starts again (the replica
 * itself goes on: its hosts are not tied to this Lease).
 */
export function createUnassignedRunnable(election: Omit<LeaseElectorOptions, 'leaderWorkStopped'>, deps: UnassignedOperatorDeps): Runnable {
  let work: Promise<void> = Promise.resolve();
  // on a graceful stop the Lease is kept until the controllers have stopped, then released
  const elector = createLeaseLeaderElector({ ...election, leaderWorkStopped: () => work });
  return {
    name: 'unassigned',
    async start(signal) {
      while (!signal.aborted) {
        work = Promise.resolve();
        await elector.run({
          onStartedLeading: (leading) => {
            work = runUnassigned(deps, leading).catch((err: unknown) => deps.log.error({ err }, 'unassigned controllers stopped'));
          },
          onStoppedLeading: () => undefined,
        }, signal);
        await work;
      }
    },
  };
}
