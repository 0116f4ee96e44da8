import { API_VERSION, RELOCATED_TO_ANNOTATION, type ZGuest, type ZGuestClass, type ZGuestSpec, type ZHost } from '../../api/index.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import type { MergePatch, ObjectKey, StateStore } from '../../store/port.js';
import type { Logger } from '../../log.js';
import { createInformerIndex } from '../../runtime/informer-index.js';
import type { GuestIndex, HypervisorResolver, RestConfig } from '../config.js';
import { computeHttpStatus } from '../envelope.js';
import { feilongErrors } from '../feilong-error.js';
import { computeCreatedDisks, computeGuestSpec, guestName, inRequestTerms, type CreatedDiskOutput, type GuestCreateInput } from './mapping.js';
import { isProvisioned } from './status.js';
import { restOwned } from '../ownership.js';
import { resolveGuestDefaults } from '../../controllers/index.js';
import { computeFailure, type WriteAndWait } from '../write-and-wait.js';

export interface GuestServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  log: Logger;
  writes: WriteAndWait;
  /** when given, GET /guests answers from it (see GuestIndex) */
  index?: GuestIndex;
}

/** How long a REST write waits for the index to show it, so a client reads its own writes. */
const INDEX_SETTLE_MS = 2000;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** by name, then namespace: the store's order within one namespace */
const byName = (a: ZGuest, b: ZGuest): number => compare(a.metadata.name, b.metadata.name) || compare(a.metadata.namespace ?? '', b.metadata.namespace ?? '');

const KIND = 'ZGuest';

const ORPHAN = { spec: { deletionPolicy: 'Orphan' } };

/**
 * The REST side of guests: reads ZGuests, writes their spec, waits for the controller's status.
 * Never mutates the hypervisor (docs/architecture.md §4); live reads go through `hypervisorFor`.
 */
export function createGuestService(deps: GuestServiceDeps) {
  const { store, config } = deps;
  const keyOf = (g: ZGuest): ObjectKey => ({ namespace: g.metadata.namespace ?? config.namespace, name: g.metadata.name });

  const served = (g: ZGuest): boolean => !config.guestNamespaces || config.guestNamespaces.includes(g.metadata.namespace ?? config.namespace);

  /** The index, once it holds the first list (a REST process starts before its watch has listed). */
  const ready = (): GuestIndex | undefined => (deps.index && (deps.index.hasSynced?.() ?? true) ? deps.index : undefined);

  /** Every ZGuest REST serves: of every namespace, or of `guestNamespaces` (the index holds them all). */
  async function listServed(): Promise<ZGuest[]> {
    const index = ready();
    if (index) return index.list().filter(served);
    if (!config.guestNamespaces) return (await store.list<ZGuest>(KIND)).items;
    const lists = await Promise.all(config.guestNamespaces.map((namespace) => store.list<ZGuest>(KIND, { namespace })));
    return lists.flatMap((l) => l.items);
  }

  /** REST's own namespace and default host first: the same userid may exist on two hosts. */
  const preference = (g: ZGuest): number => (hostOf(g) === config.defaultHost ? 0 : 2) + ((g.metadata.namespace ?? config.namespace) === config.namespace ? 0 : 1);

  /** served guests by upper-cased userid, kept by the index's events: a look-up costs its answer, not the fleet (issue 23) */
  const byUserid = deps.index ? createInformerIndex(deps.index, (g) => [g.spec.userid.toUpperCase()]) : undefined;

  const preferred = (matches: ZGuest[]): ZGuest | undefined => matches.sort((a, b) => preference(a) - preference(b))[0];

  /** Among guests with one userid: the one REST named for it in its namespace on the default host, else the most preferred. */
  function pick(userid: string, matches: ZGuest[]): ZGuest | undefined {
    const name = guestName(userid);
    const named = matches.find((g) => g.metadata.name === name && (g.metadata.namespace ?? config.namespace) === config.namespace && hostOf(g) === config.defaultHost);
    return named ?? preferred(matches);
  }

  /**
   * `cached`: the informer's copy when it has one, for a read that needs only which guest and where (a store
   * read parses the row on every request: ~8 % of a power_state's CPU in the issue-38 profile). Writes
   * read the store: their conditional patch needs its latest resourceVersion.
   */
  async function find(userid: string, cached = false): Promise<ZGuest | undefined> {
    const upper = userid.toUpperCase();
    const indexed = cached && byUserid && ready() ? byUserid.lookup(upper).filter(served) : [];
    if (indexed.length > 0) return pick(userid, indexed);
    const byName = await store.get<ZGuest>(KIND, { namespace: config.namespace, name: guestName(userid) });
    if (byName?.spec.userid.toUpperCase() === upper && hostOf(byName) === config.defaultHost) return byName;
    const matches = byUserid && ready()
      ? byUserid.lookup(upper).filter(served)
      : (await listServed()).filter((g) => g.spec.userid.toUpperCase() === upper);
    return preferred(matches);
  }

  /** A guest a live migration moved to another SSI member is no longer managed here (feilong's `migrated`). */
  const isRelocated = (g: ZGuest) => Boolean(g.metadata.annotations?.[RELOCATED_TO_ANNOTATION]);

  async function require(userid: string, cached = false): Promise<ZGuest> {
    const guest = await find(userid, cached);
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
  /** writes waiting for the index to show them (settleIndex) */
  const indexWaiters = new Set<() => void>();
  const wakeIndexWaiters = () => indexWaiters.forEach((check) => check());
  deps.index?.addHandler({
    onAdd: () => {
      listed = undefined;
      wakeIndexWaiters();
    },
    onDelete: () => {
      listed = undefined;
      wakeIndexWaiters();
    },
    onUpdate: (old, next) => void (isRelocated(old) !== isRelocated(next) && (listed = undefined)),
  });

  function computeListed(items: ZGuest[]): string[] {
    return items.filter((g) => !isRelocated(g)).map((g) => g.spec.userid.toUpperCase());
  }

  async function list(): Promise<string[]> {
    const userids = listed ?? computeListed((await listServed()).sort(byName));
    // the index tells when the list changes: kept, no copy of every object per request
    if (ready()) listed = userids;
    return [...userids];
  }

  /**
   * The index trails the store by one watch event; a write answered to a client waits (bounded) until
   * the index shows it, so the client reads its own write. Woken by the index's change callbacks.
   */
  async function settleIndex(key: ObjectKey, present: boolean): Promise<void> {
    const index = ready();
    const shows = () => (index?.get(key) !== undefined) === present;
    if (!index || shows()) return;
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        indexWaiters.delete(check);
        resolve();
      };
      const check = () => void (shows() && finish());
      const timer = setTimeout(finish, INDEX_SETTLE_MS);
      indexWaiters.add(check);
    });
  }

  const notFound = (userid: string) => () => feilongErrors.guestNotFound(userid.toUpperCase());
  const see = (userid: string) => `GET /guests/${userid.toUpperCase()}`;

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
    const key = { namespace: config.namespace, name: obj.metadata.name };
    const guest = await deps.writes.create(obj, {
      what: `guest '${spec.userid}' to be provisioned`,
      see: see(spec.userid),
      ready: isProvisioned,
      notFound: notFound(spec.userid),
      exists: () => feilongErrors.guestAlreadyExists(spec.userid),
      // a userid that belongs to someone else is orphaned, never deleted
      undo: (failure) => (adopted || computeHttpStatus(failure.fields) === 409 ? ORPHAN : true),
    }).catch(async (err: unknown) => {
      // a failed create was removed again: the client's next list must not show it
      if (!(await store.get(KIND, key))) await settleIndex(key, false);
      throw err;
    });
    await settleIndex(key, true);
    return guest;
  }

  /** The class a create names, as it is now (the controller records the revision it takes). */
  async function classOf(input: GuestCreateInput): Promise<ZGuestClass | undefined> {
    if (input.class === undefined) return undefined;
    const cls = await store.get<ZGuestClass>('ZGuestClass', { name: input.class });
    if (!cls) throw feilongErrors.classNotFound(input.class);
    return cls;
  }

  async function create(input: GuestCreateInput): Promise<CreatedDiskOutput[]> {
    const host = (await store.get<ZHost>('ZHost', { name: config.defaultHost }))?.spec.defaults;
    const cls = (await classOf(input))?.spec;
    const spec = computeGuestSpec(input, config, cls, host);
    const guest = await createAndWait(spec).catch((err: unknown) => {
      throw inRequestTerms(err, { spec }, { profile: resolveGuestDefaults({ spec, classValues: cls, host }).profile });
    });
    // disks the class gave have their vdevs only in status
    const requested = spec.disks ?? (guest.status?.disks ?? []).map((d) => ({ size: d.size, vdev: d.vdev }));
    return computeCreatedDisks(requested, guest.status?.disks);
  }

  async function remove(userid: string): Promise<void> {
    const upper = userid.toUpperCase();
    const guest = await find(upper);
    if (!guest) {
      // not managed: 404 when z/VM knows the userid, idempotent success otherwise (docs/rest-interface.md §1.3 #21)
      if (await hypervisorFor().describeGuest(upper)) throw feilongErrors.guestNotFound(upper);
      return;
    }
    await deps.writes.remove(KIND, keyOf(guest), { what: `guest '${upper}' to be deleted`, see: see(upper), failures: true });
    await settleIndex(keyOf(guest), false);
  }

  /**
   * Merge-patches a guest and waits until the controller has observed the new generation and
   * `ready` holds; Synced=False for that generation answers with the controller's error, and the
   * fields the patch wrote are put back.
   */
  function patchAndWait(guest: ZGuest, patch: MergePatch, ready: (g: ZGuest) => boolean, what: string): Promise<ZGuest> {
    return deps.writes.patch(guest, patch, { what, see: see(guest.spec.userid), ready, notFound: notFound(guest.spec.userid) });
  }

  /** Created and not yet provisioned, with no failure reported: an operation still running (e.g. past the operation timeout). */
  const isBeingCreated = (g: ZGuest): boolean => !isProvisioned(g) && !g.metadata.deletionTimestamp && !computeFailure(g);

  return { store, writes: deps.writes, isBeingCreated, find, require, list, listServed, hostOf, hypervisorFor, create, createAndWait, remove, patchAndWait, config };
}

export type GuestService = ReturnType<typeof createGuestService>;
