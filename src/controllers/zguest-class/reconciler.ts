/**
 * ZGuestClass: the one author of a class's status (docs/architecture.md §7.6). Each revision (its
 * metadata.generation) is recorded with the class values it had, so a guest or pool created after a
 * later edit can still take it; guests and pools only read the revisions, and wait for the current
 * one to be recorded before they take it. The kind has no host: under the sharded layout the replica
 * holding the "unassigned" Lease runs this controller (controllers/registry.ts, `hostless`).
 */
import { CLASS_REVISIONS_KEPT, type ZGuest, type ZGuestClass, type ZGuestClassStatus, type ZGuestPool } from '../../api/index.js';
import { done, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import { mergeConditions } from '../conditions.js';
import { writeStatusIfChanged } from '../kit/index.js';

export interface ZGuestClassReconcilerDeps {
  store: StateStore;
  clock?: () => Date;
}

type Revision = NonNullable<ZGuestClassStatus['revisions']>[number];

/** Ready's reason once the current revision is recorded. */
export const REVISION_RECORDED = 'RevisionRecorded';

/** Pure: the current revision needs recording, and the record is full: the revisions in use must be known to keep them. */
export function needsUsage(cls: ZGuestClass): boolean {
  const recorded = cls.status?.revisions ?? [];
  return !recorded.some((r) => r.revision === (cls.metadata.generation ?? 1)) && recorded.length >= CLASS_REVISIONS_KEPT;
}

/**
 * Pure: the recorded revisions with the current one added, oldest first. Past CLASS_REVISIONS_KEPT the
 * current one stays, then those guests or pools use (`inUse`: they may still make guests from them),
 * then the newest others.
 */
export function computeRevisions(cls: ZGuestClass, inUse: ReadonlySet<number>): Revision[] {
  const current = cls.metadata.generation ?? 1;
  const recorded = cls.status?.revisions ?? [];
  const all = recorded.some((r) => r.revision === current) ? [...recorded] : [...recorded, { revision: current, values: structuredClone(cls.spec) }];
  if (all.length <= CLASS_REVISIONS_KEPT) return all;
  const rank = (r: Revision) => (r.revision === current ? 2 : inUse.has(r.revision) ? 1 : 0);
  return [...all].sort((a, b) => rank(b) - rank(a) || b.revision - a.revision).slice(0, CLASS_REVISIONS_KEPT).sort((a, b) => a.revision - b.revision);
}

/** Pure: the class's status: its revisions, and Ready once the current one is among them. */
export function computeClassStatus(cls: ZGuestClass, inUse: ReadonlySet<number>, now: string): ZGuestClassStatus {
  const generation = cls.metadata.generation ?? 1;
  const revisions = computeRevisions(cls, inUse);
  const ready = { type: 'Ready', status: 'True', reason: REVISION_RECORDED, message: `revision ${generation} recorded: guests and pools may take it` } as const;
  return { ...cls.status, observedGeneration: generation, revisions, conditions: mergeConditions(cls.status?.conditions, [ready], now, generation) };
}

/** The revisions of the class that guests follow or ask for, and that pools make guests from. */
async function revisionsInUse(store: StateStore, name: string): Promise<Set<number>> {
  const [guests, pools] = await Promise.all([store.list<ZGuest>('ZGuest'), store.list<ZGuestPool>('ZGuestPool')]);
  const used = [
    ...guests.items.filter((g) => g.spec.class === name).flatMap((g) => [g.status?.class?.name === name ? g.status.class.revision : undefined, g.spec.classRevision]),
    ...pools.items.filter((p) => p.spec.template.spec.class === name).flatMap((p) => [p.status?.classRevision, p.spec.template.spec.classRevision]),
  ];
  return new Set(used.filter((r): r is number => r !== undefined));
}

export function createZGuestClassReconciler(deps: ZGuestClassReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  return {
    kind: 'ZGuestClass',
    async reconcile(key: ObjectKey): Promise<Result> {
      const cls = await deps.store.get<ZGuestClass>('ZGuestClass', key);
      if (!cls || cls.metadata.deletionTimestamp) return done();
      const inUse = needsUsage(cls) ? await revisionsInUse(deps.store, cls.metadata.name) : new Set<number>();
      // a concurrent write conflicts: the runtime retries with the class read again
      await writeStatusIfChanged(deps.store, cls, computeClassStatus(cls, inUse, clock().toISOString()));
      return done();
    },
  };
}
