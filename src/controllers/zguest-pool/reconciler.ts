import { DEFAULT_HOST, hostOf, POOL_FINALIZER, POOL_LABEL, type GuestClassValues, type ZGuest, type ZGuestClass, type ZGuestPool, type ZHost } from '../../api/index.js';
import { AlreadyExistsError, InvalidSpecError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import { keyOf, type ObjectKey, type StateStore } from '../../store/port.js';
import { addFinalizer, removeFinalizer, writeStatusIfChanged } from '../kit/index.js';
import { CLASS_REVISION_WAIT_MS, isRevisionRecorded } from '../kit/guest-class.js';
import { buildPoolGuest, isOwnedBy } from './guests.js';
import { templateSize } from './placement.js';
import { planPool, type Placement, type PoolPlan } from './plan.js';
import { PoolReasons } from './reasons.js';
import { computePoolStatus } from './status.js';

export interface ZGuestPoolReconcilerDeps {
  store: StateStore;
  events: EventRecorder;
  log: Logger;
  clock?: () => Date;
  /** how soon to look again while guests are coming, going or not yet Ready */
  pollMs?: number;
}

/**
 * The pool controller writes ZGuest objects only; each guest is then driven on its host by the ZGuest
 * controller (with sharding, the replica holding that host). Everything it decides from is durable:
 * the guests in the store and status.lastIndex, which is written before a guest with a new counter
 * value is created, so a restart mid-scale never hands a userid out twice.
 */
export function createZGuestPoolReconciler(deps: ZGuestPoolReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const pollMs = deps.pollMs ?? 2000;

  async function ownedGuests(pool: ZGuestPool): Promise<ZGuest[]> {
    const { items } = await deps.store.list<ZGuest>('ZGuest', { namespace: pool.metadata.namespace, labelSelector: { [POOL_LABEL]: pool.metadata.name } });
    return items.filter((g) => isOwnedBy(pool, g));
  }

  /** HOST/USERID of every ZGuest, in every namespace: userids are host-global. */
  const takenUserids = (all: ZGuest[]): Set<string> => new Set(all.map((g) => `${hostOf(g)}/${g.spec.userid.toUpperCase()}`));

  /** The hosts new guests may go to (listed, picked by the selector, else default), their ZHosts, and the template's size. */
  async function placementOf(pool: ZGuestPool, all: ZGuest[], classValues: GuestClassValues | undefined): Promise<Placement> {
    const selector = pool.spec.hostSelector?.matchLabels;
    const zhosts = (await deps.store.list<ZHost>('ZHost', selector ? { labelSelector: selector } : {})).items;
    const hosts = pool.spec.hosts ?? (selector ? zhosts.map((h) => h.metadata.name).sort() : [DEFAULT_HOST]);
    return { hosts, zhosts, guests: all, size: templateSize(pool, classValues) };
  }

  /**
   * The class revision new guests take (the recorded one, the template's, else the class's current one) and
   * its values; `waiting` while the class's reconciler has not recorded the current one yet (guests made
   * after a later class edit must still find it there).
   */
  async function classOf(pool: ZGuestPool): Promise<{ revision?: number; values?: GuestClassValues; waiting?: boolean }> {
    const spec = pool.spec.template.spec;
    if (!spec.class) return {};
    const cls = await deps.store.get<ZGuestClass>('ZGuestClass', { name: spec.class });
    const asked = spec.classRevision ?? pool.status?.classRevision;
    if (!cls) return { revision: asked }; // no class yet: each guest reports ClassNotFound itself
    const revision = asked ?? cls.metadata.generation;
    if (revision !== undefined && revision === cls.metadata.generation && !isRevisionRecorded(cls, revision)) return { revision, waiting: true };
    const values = revision === cls.metadata.generation ? cls.spec : cls.status?.revisions?.find((r) => r.revision === revision)?.values;
    return { revision, values };
  }

  async function deleteGuest(g: ZGuest): Promise<void> {
    try {
      await deps.store.delete('ZGuest', keyOf(g));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  async function finalize(pool: ZGuestPool): Promise<Result> {
    const guests = await ownedGuests(pool);
    for (const g of guests) if (!g.metadata.deletionTimestamp) await deleteGuest(g);
    if (guests.length > 0) return requeueAfter(pollMs); // each guest leaves once its host let it go
    await removeFinalizer(deps.store, pool, POOL_FINALIZER);
    return done();
  }

  /** Creates the plan's guests once the counter is durable; a name another object holds is left alone (the next run takes a later value). */
  async function act(pool: ZGuestPool, plan: PoolPlan, classRevision: number | undefined): Promise<ZGuestPool> {
    let current = pool;
    if (plan.creates.length > 0 && (plan.lastIndex !== pool.status?.lastIndex || classRevision !== pool.status?.classRevision)) {
      current = await deps.store.updateStatus<ZGuestPool>({ ...pool, status: { ...pool.status, lastIndex: plan.lastIndex, ...(classRevision !== undefined ? { classRevision } : {}) } });
    }
    for (const g of plan.creates) {
      try {
        await deps.store.create(buildPoolGuest(pool, g, plan.hash, classRevision));
        deps.events.event(pool, 'Normal', PoolReasons.guestCreated, `created guest ${g.userid} on host ${g.host}`);
      } catch (err) {
        if (err instanceof InvalidSpecError) {
          deps.events.event(pool, 'Warning', PoolReasons.invalidTemplate, err.message);
          throw err;
        }
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
    }
    for (const g of plan.deletes) {
      await deleteGuest(g);
      deps.events.event(pool, 'Normal', PoolReasons.guestDeleted, `deleted guest ${g.spec.userid.toUpperCase()}`);
    }
    return current;
  }

  return {
    kind: 'ZGuestPool',
    async reconcile(key: ObjectKey): Promise<Result> {
      const pool = await deps.store.get<ZGuestPool>('ZGuestPool', key);
      if (!pool) return done();
      if (pool.metadata.deletionTimestamp) return (pool.metadata.finalizers ?? []).includes(POOL_FINALIZER) ? finalize(pool) : done();
      if (!(pool.metadata.finalizers ?? []).includes(POOL_FINALIZER)) {
        // on before any guest exists, so deleting the pool always takes its guests along (in standalone too)
        await addFinalizer(deps.store, pool, POOL_FINALIZER);
        return requeueAfter(1);
      }
      const { revision: classRevision, values, waiting } = await classOf(pool);
      if (waiting) return requeueAfter(CLASS_REVISION_WAIT_MS);
      const [guests, all] = await Promise.all([ownedGuests(pool), deps.store.list<ZGuest>('ZGuest').then((l) => l.items)]);
      const placement = await placementOf(pool, all, values);
      const plan = planPool({ pool, guests, taken: takenUserids(all), classRevision, now: clock(), placement });
      const acted = await act(pool, plan, classRevision);
      const after = plan.creates.length + plan.deletes.length > 0 ? await ownedGuests(pool) : guests;
      const status = computePoolStatus({ pool: acted, guests: after, plan, classRevision, now: clock() });
      await writeStatusIfChanged(deps.store, acted, status);
      deps.log.debug({ pool: pool.metadata.name, creates: plan.creates.length, deletes: plan.deletes.length, phase: status.phase }, 'pool reconciled');
      // guests on hosts another replica holds are not in this replica's watch: look again while anything moves
      if (status.phase === 'Ready' || status.phase === 'Paused') return done();
      return requeueAfter(status.phase === 'Stalled' ? pollMs * 5 : pollMs);
    },
  };
}
