/**
 * Applies a migration to a store (embedded or kube, through the StateStore port), never overwriting:
 * a resource that exists is left as it is, and reported as a conflict unless it is the one an earlier
 * run wrote. A run that stopped half-way resumes: what exists is skipped, a status not yet written is
 * written (the status annotation tells), and a second complete run writes nothing.
 */
import { hostOf, imageNameOf, type Resource, type ZGuest, type ZImage } from '../api/index.js';
import { AlreadyExistsError, ConflictError } from '../errors.js';
import { keyOf, keyString, type StateStore } from '../store/port.js';
import { MIGRATED_FROM, type MigrationItem } from './model.js';

/** Set once the migrated status is in place; a resumed run writes the status of resources without it. */
export const STATUS_WRITTEN = 'zvm.dev/migrated-status';

export type ApplyAction = 'create' | 'write-status' | 'unchanged' | 'conflict';

export interface ApplyDecision {
  item: MigrationItem;
  action: ApplyAction;
  /** for conflicts: what exists and why it is left alone */
  reason?: string;
}

export const describeResource = (r: Resource) => `${r.kind} ${keyString(keyOf(r))}`;

/** Every field we set is present with the same value (the store may add defaults and more). */
export function containsAll(actual: unknown, wanted: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object') return actual === wanted;
  if (Array.isArray(wanted)) return Array.isArray(actual) && actual.length === wanted.length && wanted.every((w, i) => containsAll(actual[i], w));
  if (actual === null || typeof actual !== 'object') return false;
  return Object.entries(wanted).every(([k, v]) => containsAll((actual as Record<string, unknown>)[k], v));
}

/** Another resource already claims what this one would: a userid, or an image name on the host. */
async function claimedElsewhere(store: StateStore, r: Resource): Promise<string | undefined> {
  const same = (o: Resource) => o.metadata.name === r.metadata.name && o.metadata.namespace === r.metadata.namespace;
  if (r.kind === 'ZGuest') {
    const g = r as ZGuest;
    const { items } = await store.list<ZGuest>('ZGuest');
    const other = items.find((o) => !same(o) && o.spec.userid.toUpperCase() === g.spec.userid && hostOf(o) === g.spec.host);
    return other && `userid ${g.spec.userid} is already managed by ${describeResource(other)}`;
  }
  if (r.kind === 'ZImage') {
    const i = r as ZImage;
    const { items } = await store.list<ZImage>('ZImage');
    const other = items.find((o) => !same(o) && imageNameOf(o).toLowerCase() === imageNameOf(i).toLowerCase() && hostOf(o) === i.spec.host);
    return other && `image ${imageNameOf(i)} is already recorded by ${describeResource(other)}`;
  }
  return undefined;
}

async function decide(store: StateStore, item: MigrationItem): Promise<ApplyDecision> {
  const r = item.resource;
  const existing = await store.get(r.kind, keyOf(r));
  if (!existing) {
    const claim = await claimedElsewhere(store, r);
    return claim ? { item, action: 'conflict', reason: claim } : { item, action: 'create' };
  }
  if (existing.metadata.annotations?.[MIGRATED_FROM] !== 'feilong') {
    return { item, action: 'conflict', reason: `${describeResource(existing)} exists and was not written by a migration: left as it is` };
  }
  if (!containsAll(existing.spec, r.spec)) {
    return { item, action: 'conflict', reason: `${describeResource(existing)} was migrated before and its spec differs now: left as it is` };
  }
  const statusPending = item.status !== undefined && existing.metadata.annotations?.[STATUS_WRITTEN] !== 'true';
  return { item, action: statusPending ? 'write-status' : 'unchanged' };
}

/** What applying would do, item by item (the dry run's answer). */
export async function planApply(store: StateStore, items: readonly MigrationItem[]): Promise<ApplyDecision[]> {
  const out: ApplyDecision[] = [];
  for (const item of items) out.push(await decide(store, item));
  return out;
}

/** Status through the status subresource, under the object's current version; retried on a conflict. */
async function writeStatus(store: StateStore, r: Resource, status: Record<string, unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const current = await store.get(r.kind, keyOf(r));
    if (!current) throw new Error(`${describeResource(r)} vanished before its status was written`);
    const generation = current.metadata.generation ?? 1;
    try {
      await store.updateStatus({ ...current, status: { ...status, observedGeneration: generation } });
      break;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= 10) throw err;
    }
  }
  await store.patch(r.kind, keyOf(r), { metadata: { annotations: { [STATUS_WRITTEN]: 'true' } } });
}

/** Carries out the decisions; conflicts and unchanged items are not touched. */
export async function executeApply(store: StateStore, decisions: readonly ApplyDecision[], log: (line: string) => void = () => {}): Promise<void> {
  for (const d of decisions) {
    const r = d.item.resource;
    if (d.action === 'create') {
      try {
        await store.create(r);
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
        log(`${describeResource(r)} appeared meanwhile: left as it is`);
        continue;
      }
      log(`${describeResource(r)} created`);
    }
    if ((d.action === 'create' || d.action === 'write-status') && d.item.status) {
      await writeStatus(store, r, d.item.status);
      log(`${describeResource(r)} status written`);
    }
  }
}
