import { API_VERSION, RELOCATED_TO_ANNOTATION, type ZGuest, type ZGuestSpec } from '../../api/index.js';
import { AlreadyExistsError, NotFoundError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/port.js';
import type { MergePatch, ObjectKey, StateStore } from '../../store/port.js';
import type { Logger } from '../../log.js';
import type { GuestIndex, HypervisorResolver, RestConfig } from '../config.js';
import { computeHttpStatus } from '../envelope.js';
import { FeilongError, feilongErrors } from '../feilong-error.js';
import { computeCreatedDisks, computeGuestSpec, guestName, type CreatedDiskOutput, type GuestCreateInput } from './mapping.js';
import { computeRestorePatch } from './restore.js';
import { computeSyncFailure, isProvisioned, observedAtLeast } from './status.js';
import { waitForObject } from './wait.js';
import { restOwned } from '../ownership.js';

export interface GuestServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  log: Logger;
  /** when given, GET /guests answers from it (see GuestIndex) */
  index?: GuestIndex;
}

/** How long a REST write waits for the index to show it, so a client reads its own writes. */
const INDEX_SETTLE_MS = 2000;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** by name, then namespace: the store's order within one namespace */
const byName = (a: ZGuest, b: ZGuest): number => compare(a.metadata.name, b.metadata.name) || compare(a.metadata.namespace ?? '', b.metadata.namespace ?? '');

const KIND = 'ZGuest';

type Json = Record<string, unknown>;
const isDict = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The REST side of guests: reads ZGuests, writes their spec, waits for the controller's status.
 * Never mutates the hypervisor (docs/architecture.md §4); live reads go through `hypervisorFor`.
 */
export function createGuestService(deps: GuestServiceDeps) {
  const { store, config } = deps;
  const keyOf = (g: ZGuest): ObjectKey => ({ namespace: g.metadata.namespace ?? config.namespace, name: g.metadata.name });
  const waitOpts = () => ({ timeoutMs: config.waitTimeoutMs, pollIntervalMs: config.pollIntervalMs });
  const seconds = Math.round(config.waitTimeoutMs / 1000);

  const served = (g: ZGuest): boolean => !config.guestNamespaces || config.guestNamespaces.includes(g.metadata.namespace ?? config.namespace);

  /** Every ZGuest REST serves: of every namespace, or of `guestNamespaces` (the index holds them all). */
  async function listServed(): Promise<ZGuest[]> {
    if (deps.index) return deps.index.list().filter(served);
    if (!config.guestNamespaces) return (await store.list<ZGuest>(KIND)).items;
    const lists = await Promise.all(config.guestNamespaces.map((namespace) => store.list<ZGuest>(KIND, { namespace })));
    return lists.flatMap((l) => l.items);
  }

  /** REST's own namespace and default host first: the same userid may exist on two hosts. */
  const preference = (g: ZGuest): number => (hostOf(g) === config.defaultHost ? 0 : 2) + ((g.metadata.namespace ?? config.namespace) === config.namespace ? 0 : 1);

  async function find(userid: string): Promise<ZGuest | undefined> {
    const upper = userid.toUpperCase();
    const byName = await store.get<ZGuest>(KIND, { namespace: config.namespace, name: guestName(userid) });
    if (byName?.spec.userid.toUpperCase() === upper && hostOf(byName) === config.defaultHost) return byName;
    const matches = (await listServed()).filter((g) => g.spec.userid.toUpperCase() === upper);
    return matches.sort((a, b) => preference(a) - preference(b))[0];
  }

  /** A guest a live migration moved to another SSI member is no longer managed here (feilong's `migrated`). */
  const isRelocated = (g: ZGuest) => Boolean(g.metadata.annotations?.[RELOCATED_TO_ANNOTATION]);

  async function require(userid: string): Promise<ZGuest> {
    const guest = await find(userid);
    if (!guest || isRelocated(guest)) throw feilongErrors.guestNotFound(userid.toUpperCase());
    return guest;
  }

  function hostOf(guest?: ZGuest): string {
    return guest?.spec.host ?? config.defaultHost;
  }

  function hypervisorFor(guest?: ZGuest): Hypervisor {
    return deps.hypervisors.forHost(hostOf(guest));
  }

  /** GET /guests from the index, kept until a guest comes, goes or moves away (a userid never changes) */
  let listed: string[] | undefined;
  deps.index?.addHandler({
    onAdd: () => void (listed = undefined),
    onDelete: () => void (listed = undefined),
    onUpdate: (old, next) => void (isRelocated(old) !== isRelocated(next) && (listed = undefined)),
  });

  function computeListed(items: ZGuest[]): string[] {
    return items.filter((g) => !isRelocated(g)).map((g) => g.spec.userid.toUpperCase());
  }

  async function list(): Promise<string[]> {
    const userids = listed ?? computeListed((await listServed()).sort(byName));
    // the index tells when the list changes: kept, no copy of every object per request
    if (deps.index) listed = userids;
    return [...userids];
  }

  /** The index trails the store by one watch event; a write answered to a client waits for it (bounded). */
  async function settleIndex(key: ObjectKey, present: boolean): Promise<void> {
    const index = deps.index;
    if (!index) return;
    const deadline = Date.now() + INDEX_SETTLE_MS;
    while ((index.get(key) !== undefined) !== present && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }

  /** Waits until the object is gone; a Synced=False recorded after `since` ends the wait with that error. */
  async function waitGone(key: ObjectKey, userid: string, since: string): Promise<void> {
    const outcome = await waitForObject<ZGuest, true>(store, KIND, key, (g) => {
      if (!g) return true;
      const failure = computeSyncFailure(g, since);
      if (failure) throw failure;
      return undefined;
    }, waitOpts());
    if (!outcome.done) throw feilongErrors.waitTimeout(`guest '${userid}' to be deleted`, seconds);
    await settleIndex(key, false);
  }

  /** A failed create leaves nothing behind; a userid owned by someone else is orphaned, never deleted. */
  async function undoCreate(key: ObjectKey, userid: string, ownedElsewhere: boolean): Promise<void> {
    try {
      if (ownedElsewhere) await store.patch(KIND, key, { spec: { deletionPolicy: 'Orphan' } });
      await store.delete(KIND, key);
      // The create's own failure may still be in status; only the object's disappearance matters here.
      const outcome = await waitForObject<ZGuest, true>(store, KIND, key, (g) => (g ? undefined : true), waitOpts());
      if (!outcome.done) throw feilongErrors.waitTimeout(`guest '${userid}' to be deleted`, seconds);
      await settleIndex(key, false);
    } catch (err) {
      // the create error is the answer; a failed clean-up is logged for a person to finish it
      if (!(err instanceof NotFoundError)) deps.log.warn({ err, userid }, 'could not remove the guest of a failed create');
    }
  }

  /**
   * Creates a ZGuest and waits until it is provisioned. On a reported failure the resource is
   * removed again (orphaned when the userid belongs to someone else or `adopted`) and the
   * controller's error is the answer.
   */
  async function createAndWait(spec: ZGuestSpec, adopted = false): Promise<ZGuest> {
    // a userid is unique per host: the same userid on another host is another guest
    const existing = await find(spec.userid);
    if (existing && hostOf(existing) === (spec.host ?? config.defaultHost)) throw feilongErrors.guestAlreadyExists(spec.userid);
    const obj: ZGuest = { apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name: guestName(spec.userid), namespace: config.namespace }), spec };
    let created: ZGuest;
    try {
      created = await store.create(obj);
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw feilongErrors.guestAlreadyExists(spec.userid);
      throw err;
    }
    const generation = created.metadata.generation ?? 1;
    const key = keyOf(created);
    const outcome = await waitForObject<ZGuest, ZGuest>(store, KIND, key, (g) => {
      if (!g) throw feilongErrors.guestNotFound(spec.userid);
      if (!observedAtLeast(g, generation)) return undefined;
      const failure = computeSyncFailure(g);
      if (failure) throw failure;
      return isProvisioned(g) ? g : undefined;
    }, waitOpts()).catch(async (err: unknown) => {
      if (err instanceof FeilongError && err.code !== 'NOT_FOUND') {
        await undoCreate(key, spec.userid, adopted || computeHttpStatus(err.fields) === 409);
      }
      throw err;
    });
    if (!outcome.done) throw feilongErrors.waitTimeout(`guest '${spec.userid}' to be provisioned`, seconds);
    await settleIndex(key, true);
    return outcome.value;
  }

  async function create(input: GuestCreateInput): Promise<CreatedDiskOutput[]> {
    const spec = computeGuestSpec(input, config);
    const guest = await createAndWait(spec);
    return computeCreatedDisks(spec.disks ?? [], guest.status?.disks);
  }

  async function remove(userid: string): Promise<void> {
    const upper = userid.toUpperCase();
    const guest = await find(upper);
    if (!guest) {
      // not managed: 404 when z/VM knows the userid, idempotent success otherwise (docs/rest-interface.md §1.3 #21)
      if (await hypervisorFor().describeGuest(upper)) throw feilongErrors.guestNotFound(upper);
      return;
    }
    const key = keyOf(guest);
    const since = new Date().toISOString();
    try {
      await store.delete(KIND, key);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw err;
    }
    await waitGone(key, upper, since);
  }

  /**
   * Merge-patches a guest and waits until the controller has observed the new generation and
   * `ready` holds; Synced=False for that generation answers with the controller's error.
   */
  async function patchAndWait(guest: ZGuest, patch: MergePatch, ready: (g: ZGuest) => boolean, what: string): Promise<ZGuest> {
    const key = keyOf(guest);
    let updated: ZGuest;
    try {
      updated = await store.patch<ZGuest>(KIND, key, patch);
    } catch (err) {
      if (err instanceof NotFoundError) throw feilongErrors.guestNotFound(guest.spec.userid);
      throw err;
    }
    const generation = updated.metadata.generation ?? 1;
    let failure: FeilongError | undefined;
    const outcome = await waitForObject<ZGuest, ZGuest>(store, KIND, key, (g) => {
      if (!g) throw feilongErrors.guestNotFound(guest.spec.userid);
      if (!observedAtLeast(g, generation)) return undefined;
      failure = computeSyncFailure(g);
      return failure || ready(g) ? g : undefined;
    }, waitOpts());
    // a timeout leaves the change requested (it completes in the background); a failure is undone
    if (!outcome.done) throw feilongErrors.waitTimeout(what, seconds);
    if (failure) {
      await restoreSpec(guest, patch, outcome.value);
      throw failure;
    }
    return outcome.value;
  }

  /** Puts back the spec fields a failed request wrote, unless someone changed the guest since. */
  async function restoreSpec(before: ZGuest, patch: MergePatch, failed: ZGuest): Promise<void> {
    const restore = isDict(patch.spec) ? computeRestorePatch(before.spec as Json, patch.spec, failed.spec as Json) : undefined;
    if (!restore) return;
    try {
      await store.patch<ZGuest>(KIND, keyOf(failed), { spec: restore }, { resourceVersion: failed.metadata.resourceVersion });
    } catch (err) {
      deps.log.warn({ err, guest: failed.metadata.name }, 'could not restore the spec after a failed request; it changed meanwhile');
    }
  }

  return { store, find, require, list, listServed, hostOf, hypervisorFor, create, createAndWait, remove, patchAndWait, config };
}

export type GuestService = ReturnType<typeof createGuestService>;
