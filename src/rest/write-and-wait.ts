/**
 * The one write-and-wait engine of the REST sidecar (docs/architecture.md §4; src/rest/README.md). Every verb
 * that changes a resource writes it here, then waits for the controller's verdict on that write
 * through the process's shared store watch (store-feed.ts), never by polling. The verdict becomes
 * feilong's envelope through the kind's row (api/kinds.ts restVerdict) and one table (REASONS). A failed call leaves the resources as
 * they were: a failed create is removed again, a failed patch has the fields it wrote put back.
 * Every wait is bounded by the operation timeout; past it the answer says the operation is still
 * running and where to see it (HTTP 202), and the change completes in the background.
 *
 * A host whose SMAPI is unreachable (its ZHost says SmapiReachable=False, controllers/zguest/outage.ts)
 * gets no write at all: the call answers at once with the reference's SMAPI-down result (HTTP 503),
 * so nothing the client was told failed happens later. A write made before the outage was declared
 * is answered 202 when it is: accepted, carried out when the host answers again.
 */
import { KINDS, unreachableSince, type Condition, type Resource, type RestVerdict, type ZHost } from '../api/index.js';
import { AlreadyExistsError, NotFoundError, type HvErrorFields } from '../errors.js';
import type { Logger } from '../log.js';
import { realClock } from '../runtime/clock.js';
// the labeler's file, not the sharding index: that one loads the Kubernetes client (lease store)
import { hostOf } from '../runtime/sharding/labeler.js';
import { keyOf, keyString, type MergePatch, type ObjectKey, type StateStore } from '../store/port.js';
import type { RestConfig } from './config.js';
import { FeilongError, ModID, feilongErrors, fromHvError } from './feilong-error.js';
import { computeRestorePatch } from './guests/restore.js';
import { RESYNC, type FeedNews, type StoreFeed } from './store-feed.js';

/** The status fields every kind's controller writes (CommonStatusFields). */
interface Judged extends Resource {
  status?: { observedGeneration?: number; conditions?: Condition[]; phase?: string; lastError?: HvErrorFields; message?: string; pendingPlan?: { hash: string; steps: string[] } };
}

/** Under ZHost changePolicy Approve the controller holds the plan that carries the write out (controllers/zguest/approval.ts). */
function heldForApproval(obj: Judged, what: WaitWhat, deleting = false): FeilongError | undefined {
  const held = obj.status?.pendingPlan;
  if (!held || (deleting && !held.steps.includes('deleteGuest'))) return undefined;
  return feilongErrors.awaitingApproval(what.what, held.hash, what.see ?? `${obj.kind} ${keyString(keyOf(obj))}`);
}

/** How each kind's controller says a write failed: the kind's row (api/kinds.ts restVerdict). */
function verdictOf(kind: string): { failedBy: RestVerdict['failedBy']; modID: number } {
  const v = KINDS[kind]?.restVerdict ?? { failedBy: 'Synced', module: 'sdkwsgi' };
  return { failedBy: v.failedBy, modID: ModID[v.module] };
}

const invalid = (m: string) => feilongErrors.invalidArg(m);
const missing = (m: string, modID: number) => new FeilongError('NOT_FOUND', { overallRC: 404, modID, rc: 404, rs: 1, errmsg: m });
/** Failure reasons that carry no hypervisor error, as feilong answers them (src/rest/README.md). */
const REASONS: Record<string, (message: string, modID: number) => FeilongError> = {
  // another resource or an unmanaged guest owns the userid: feilong's "already exists" (409)
  UseridConflict: (m, modID) => new FeilongError('ALREADY_EXISTS', { overallRC: 409, modID, rc: 409, rs: 1, errmsg: m }),
  InvalidResize: (m, modID) => feilongErrors.conflict(1, m, modID),
  InvalidDisks: invalid,
  InvalidNics: invalid,
  // moved to another SSI member: like feilong's migrated guests, not found here
  Relocated: missing,
  // a guest's class went away or lacks a value between the REST check and the controller's
  ClassNotFound: missing,
  ClassRevisionUnavailable: missing,
  ClassIncomplete: invalid,
  DiskRemovalRequiresStop: (m, modID) => feilongErrors.notImplemented(m, modID),
  // a one-off action that failed without a hypervisor answer (e.g. its guest is not logged on)
  ActionFailed: (m, modID) => feilongErrors.conflict(1, m, modID),
};

const synced = (obj: Judged) => obj.status?.conditions?.find((c) => c.type === 'Synced');

/**
 * The controller's verdict that the write failed, as the answer (the one table). `since` (ISO time)
 * ignores a verdict recorded before it, e.g. one from before a delete was requested.
 */
export function computeFailure(obj: Judged, since?: string): FeilongError | undefined {
  const rule = verdictOf(obj.kind);
  const s = synced(obj);
  const status = obj.status ?? {};
  const failed = rule.failedBy === 'phase' ? status.phase === 'Failed'
    : rule.failedBy === 'Synced' ? s?.status === 'False'
      : rule.failedBy === 'lastError' ? s?.status === 'False' && status.lastError !== undefined : false;
  if (!failed) return undefined;
  if (since && s && s.lastTransitionTime < since) return undefined;
  if (status.lastError) return fromHvError(status.lastError);
  const reason = s?.reason ?? (obj.kind === 'ZGuestAction' ? 'ActionFailed' : 'Failed');
  const message = s?.message ?? status.message ?? '';
  const known = REASONS[reason];
  if (known) return known(message, rule.modID);
  return new FeilongError('INTERNAL', { overallRC: 500, modID: rule.modID, rc: 500, rs: 1, errmsg: `Unexpected internal error in ZVM SDK, error: ${reason}: ${message}` });
}

/** The controller's verdict: done (with the object), failed (with the object as it failed), or still to come. */
type Verdict<R> = { done: R } | { failed: FeilongError; current?: Judged } | undefined;
type Settled<R> = Exclude<Verdict<R>, undefined>;

export interface WaitWhat {
  /** what the caller waits for, in words: "image 'rhel9' to be ready" */
  what: string;
  /** where a client sees an operation that outlives the call: "GET /images?imagename=rhel9" */
  see?: string;
}

export interface CreateOptions<T> extends WaitWhat {
  /** the controller finished the write (failures are the table's business) */
  ready(obj: T): boolean;
  /** the answer when the object disappears while the call waits */
  notFound(): FeilongError;
  /** the answer when the name is taken (the store's AlreadyExistsError) */
  exists?(): FeilongError;
  /** how to remove a failed create: false keeps it; a patch is written before the delete (e.g. deletionPolicy Orphan) */
  undo?(failure: FeilongError): boolean | MergePatch;
}

export interface PatchOptions<T> extends WaitWhat {
  ready(obj: T): boolean;
  notFound(): FeilongError;
  /** a write that changes no generation needs no controller (e.g. rewriting the same grants) */
  unchangedIsDone?: boolean;
  /** write only if the object is still `before` (its resourceVersion), else ConflictError */
  ifUnchanged?: boolean;
}

export interface RemoveOptions extends WaitWhat {
  /** a delete the controller reports failed (Synced=False after the delete) answers its error */
  failures?: boolean;
}

export interface WriteAndWaitDeps {
  store: StateStore;
  feed: StoreFeed;
  config: Pick<RestConfig, 'operationTimeoutMs'>;
  log: Logger;
}

export function createWriteAndWait(deps: WriteAndWaitDeps) {
  const { store, feed, config, log } = deps;
  const seconds = () => Math.round(config.operationTimeoutMs / 1000);

  /**
   * Waits for the verdict on one object: judged on every change the shared watch brings, bounded by
   * the operation timeout (then stillRunning is thrown). A judge that throws answers with its error.
   */
  async function waitFor<T extends Resource, R>(kind: string, key: ObjectKey, judge: (obj: T | undefined) => Verdict<R>, what: WaitWhat, host?: string): Promise<Settled<R>> {
    let settle!: (v: Settled<R> | { thrown: unknown }) => void;
    const outcome = new Promise<Settled<R> | { thrown: unknown }>((resolve) => (settle = resolve));
    const consider = (obj: T | undefined): void => {
      try {
        const verdict = judge(obj);
        if (verdict) settle(verdict);
      } catch (err) {
        settle({ thrown: err });
      }
    };
    const reread = (): void => void store.get<T>(kind, key).then(consider, (err: unknown) => settle({ thrown: err }));
    const unsubscribe = await feed.subscribe<T>(kind, key, (news: FeedNews<T>) => (news === RESYNC ? reread() : consider(news)));
    const unwatchHost = host ? await watchOutage(host, what, (err) => settle({ thrown: err })) : () => undefined;
    const stillRunning = () => feilongErrors.stillRunning(what.what, seconds(), what.see ?? `${kind} ${keyString(key)}`);
    const timer = realClock.setTimeout(() => settle({ thrown: stillRunning() }), config.operationTimeoutMs);
    try {
      reread();
      const result = await outcome;
      if ('thrown' in result) throw result.thrown;
      return result;
    } finally {
      realClock.clearTimeout(timer);
      unsubscribe();
      unwatchHost();
    }
  }

  /** The ZHost a write goes to, after refusing it when that host's SMAPI is unreachable (nothing written). */
  async function hostAnswering(obj: Resource): Promise<string | undefined> {
    if (obj.kind === 'ZHost') return undefined;
    const host = await hostOf(obj, store);
    if (!host) return undefined;
    const zhost = await store.get<ZHost>('ZHost', { name: host });
    const since = unreachableSince(zhost);
    if (since) throw feilongErrors.smapiDown(`SMAPI of host ${host} is unreachable (since ${since}); nothing was changed, try again when it answers`);
    return zhost && host; // an unknown host declares no outage: nothing to watch
  }

  /** While a written change waits, an outage declared on its host ends the wait: accepted, done when it answers. */
  async function watchOutage(host: string, what: WaitWhat, end: (err: FeilongError) => void): Promise<() => void> {
    const consider = (zhost: ZHost | undefined): void => {
      if (unreachableSince(zhost)) end(feilongErrors.acceptedWhileUnreachable(what.what, host, what.see ?? `ZHost ${host}`));
    };
    return feed.subscribe<ZHost>('ZHost', { name: host }, (news) => (news === RESYNC ? void store.get<ZHost>('ZHost', { name: host }).then(consider, () => undefined) : consider(news)));
  }

  /** Gone, or (with `since`) the controller's failure recorded after it. */
  function judgeGone(what: WaitWhat, since?: string) {
    return (obj: Judged | undefined): Verdict<true> => {
      if (!obj) return { done: true };
      const held = heldForApproval(obj, what, true);
      if (held) throw held;
      const failure = since ? computeFailure(obj, since) : undefined;
      return failure ? { failed: failure, current: obj } : undefined;
    };
  }

  /** Judges a written generation: gone → notFound, the table's failure, else `ready`. */
  function judgeWritten<T extends Judged>(generation: number, ready: (obj: T) => boolean, notFound: () => FeilongError, what: WaitWhat) {
    return (obj: T | undefined): Verdict<T> => {
      if (!obj) throw notFound();
      if ((obj.status?.observedGeneration ?? 0) < generation) return undefined;
      const failure = computeFailure(obj);
      if (failure) return { failed: failure, current: obj };
      const held = heldForApproval(obj, what);
      if (held) throw held;
      return ready(obj) ? { done: obj } : undefined;
    };
  }

  async function deleteAndWait(kind: string, key: ObjectKey, what: WaitWhat, failures = false, host?: string): Promise<void> {
    const since = new Date().toISOString();
    try {
      await store.delete(kind, key);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw err;
    }
    const verdict = await waitFor<Judged, true>(kind, key, judgeGone(what, failures ? since : undefined), what, host);
    if ('failed' in verdict) throw verdict.failed;
  }

  /** A failed create leaves nothing behind; a failed clean-up is logged for a person to finish it. */
  async function undoCreate(obj: Resource, how: true | MergePatch): Promise<void> {
    const key = keyOf(obj);
    try {
      if (how !== true) await store.patch(obj.kind, key, how);
      await deleteAndWait(obj.kind, key, { what: `${obj.kind} ${keyString(key)} of a failed request to be removed` });
    } catch (err) {
      if (!(err instanceof NotFoundError)) log.warn({ err, kind: obj.kind, key: keyString(key) }, 'could not remove the resource of a failed request');
    }
  }

  /** Puts back the spec fields a failed patch wrote, unless someone changed them since. */
  async function restoreSpec(before: Judged, patch: MergePatch, failed: Judged): Promise<void> {
    const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    const [was, wrote, now] = [(before as { spec?: unknown }).spec, patch.spec, (failed as { spec?: unknown }).spec];
    const restore = isDict(was) && isDict(wrote) && isDict(now) ? computeRestorePatch(was, wrote, now) : undefined;
    if (!restore) return;
    try {
      await store.patch(failed.kind, keyOf(failed), { spec: restore }, { resourceVersion: failed.metadata.resourceVersion });
    } catch (err) {
      log.warn({ err, kind: failed.kind, key: keyString(keyOf(failed)) }, 'could not restore the spec after a failed request; it changed meanwhile');
    }
  }

  return {
    /** Creates `obj` and waits until `ready`; a reported failure removes it again (per `undo`) and is the answer. */
    async create<T extends Judged>(obj: T, opts: CreateOptions<T>): Promise<T> {
      const host = await hostAnswering(obj);
      let created: T;
      try {
        created = await store.create(obj);
      } catch (err) {
        if (err instanceof AlreadyExistsError && opts.exists) throw opts.exists();
        throw err;
      }
      const verdict = await waitFor<T, T>(obj.kind, keyOf(created), judgeWritten<T>(created.metadata.generation ?? 1, opts.ready, opts.notFound, opts), opts, host);
      if ('done' in verdict) return verdict.done;
      const how = opts.undo ? opts.undo(verdict.failed) : true;
      if (how !== false) await undoCreate(created, how);
      throw verdict.failed;
    },

    /** Merge-patches an object and waits until `ready`; a reported failure puts back what it wrote and is the answer. */
    async patch<T extends Judged>(before: T, patch: MergePatch, opts: PatchOptions<T>): Promise<T> {
      const key = keyOf(before);
      const host = await hostAnswering(before);
      let updated: T;
      try {
        updated = await store.patch<T>(before.kind, key, patch, opts.ifUnchanged ? { resourceVersion: before.metadata.resourceVersion } : {});
      } catch (err) {
        if (err instanceof NotFoundError) throw opts.notFound();
        throw err;
      }
      if (opts.unchangedIsDone && updated.metadata.generation === before.metadata.generation) return updated;
      const verdict = await waitFor<T, T>(before.kind, key, judgeWritten<T>(updated.metadata.generation ?? 1, opts.ready, opts.notFound, opts), opts, host);
      if ('done' in verdict) return verdict.done;
      if (verdict.current) await restoreSpec(before, patch, verdict.current);
      throw verdict.failed;
    },

    /** Deletes and waits until the object is gone (its finalizers done); an absent object is success. */
    async remove(kind: string, key: ObjectKey, opts: RemoveOptions): Promise<void> {
      const current = await store.get(kind, key);
      const host = current ? await hostAnswering(current) : undefined;
      return deleteAndWait(kind, key, opts, opts.failures, host);
    },
  };
}

export type WriteAndWait = ReturnType<typeof createWriteAndWait>;
