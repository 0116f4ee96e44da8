/**
 * Server side of `zvm-operator plan`: what applying one manifest would change, written nowhere. The
 * resource is merged as apply would merge it; a ZGuest, ZVswitch or ZVolume is then planned against its
 * host by its reconciler's own planner (controllers/<kind>/preview.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { changedFields, hostOf, type FieldChange, type Resource, type ZGuest, type ZVolume, type ZVswitch } from '../api/index.js';
import {
  DEFAULT_GUEST_DEFAULTS, previewZGuest, previewZVolume, previewZVswitch, type GuestDefaults, type GuestPlan, type KindPlan,
} from '../controllers/index.js';
import type { HypervisorRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../store/port.js';
import { manifestOf } from './admin-server.js';
import { appliedOnto, LAST_APPLIED } from './apply-merge.js';

export interface ResourcePlan {
  kind: string;
  namespace?: string;
  name: string;
  /** what apply would do to the resource itself */
  action: 'create' | 'update' | 'unchanged';
  /** true when the resource or its host would change */
  changes: boolean;
  /** the host calls of a ZGuest */
  guest?: GuestPlan;
  /** the host calls of another kind whose controller plans them (ZVswitch, ZVolume) */
  plan?: KindPlan;
  /** why the host part is not planned */
  note?: string;
  /** an update: the spec fields it changes and how each is handled (docs/fields.md); a fixed one is refused */
  fields?: FieldChange[];
}

export interface PlanDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  log: Logger;
  defaults?: GuestDefaults;
}

const PLAN_TIMEOUT_MS = 60_000;

export async function planManifest(deps: PlanDeps, body: unknown): Promise<ResourcePlan> {
  const { obj, def, key } = manifestOf(body);
  const current = await deps.store.get(def.kind, key);
  const next: Resource = current ? nextGeneration(appliedOnto(current, obj), current) : { ...obj, status: undefined, metadata: { ...obj.metadata, generation: 1, creationTimestamp: new Date().toISOString() } };
  const action = !current ? 'create' : sameApplied(next, current) ? 'unchanged' : 'update';
  const fields = current ? changedFields(def.fields, current.spec, next.spec, sameJson) : [];
  const base = { kind: def.kind, ...(key.namespace ? { namespace: key.namespace } : {}), name: key.name, action, ...(fields.length > 0 ? { fields } : {}) } as const;
  const fixed = fields.filter((f) => f.lifecycle === 'fixed').map((f) => f.path);
  if (fixed.length > 0) return { ...base, changes: false, note: `refused: ${fixed.map((f) => `${f} is immutable`).join('; ')} (docs/fields.md)` };
  const unplanned = (note: string): ResourcePlan => ({ ...base, changes: action !== 'unchanged', note });
  const hostName = plannedHostOf(next);
  if (!hostName) return unplanned(`host calls are planned for ${[...PLANNED_KINDS].join(', ')}; ${def.kind} shows the resource change`);
  const hv = deps.hypervisors.forHost(hostName);
  if (!hv) return unplanned(`ZHost ${hostName} is not known: no host calls can be planned`);
  const signal = AbortSignal.timeout(PLAN_TIMEOUT_MS);
  if (def.kind === 'ZVswitch') return withPlan(base, await previewZVswitch({ vswitch: next as ZVswitch, hv, signal }));
  if (def.kind === 'ZVolume') return withPlan(base, await previewZVolume({ volume: next as ZVolume, hv, store: deps.store, log: deps.log, signal }));
  const { items } = await deps.store.list<ZGuest>('ZGuest');
  const plan = await previewZGuest({ guest: next as ZGuest, hv, defaults: deps.defaults ?? DEFAULT_GUEST_DEFAULTS, store: deps.store, log: deps.log, guests: items, signal });
  return { ...base, changes: action !== 'unchanged' || plan.changes, guest: plan };
}

/** The kinds whose controllers plan their host calls; the others show the resource change only. */
const PLANNED_KINDS = new Set(['ZGuest', 'ZVswitch', 'ZVolume']);

/** The host whose calls a manifest's plan lists; undefined for a kind whose host calls are not planned. */
export function plannedHostOf(obj: Resource): string | undefined {
  if (!PLANNED_KINDS.has(obj.kind)) return undefined;
  return obj.kind === 'ZGuest' ? hostOf(obj as ZGuest) : ((obj.spec as { host?: string } | undefined)?.host ?? 'default');
}

/** Equal as JSON (undefined members dropped, an absent value an empty object). */
const sameJson = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b ?? {})));

function withPlan(base: Omit<ResourcePlan, 'changes'>, plan: KindPlan): ResourcePlan {
  return { ...base, changes: base.action !== 'unchanged' || plan.changes, plan };
}

/** A spec change moves the generation on, as the store would (a ZVolume attaches once per generation). */
function nextGeneration(next: Resource, current: Resource): Resource {
  if (sameJson(next.spec, current.spec)) return next;
  return { ...next, metadata: { ...next.metadata, generation: (current.metadata.generation ?? 0) + 1 } };
}

/** What an apply writes: spec, labels and annotations (an absent map is an empty one). */
/** Whether applying changes anything the resource is about; apply's own record (the last-applied annotation) does not count. */
function sameApplied(a: Resource, b: Resource): boolean {
  const annotations = (r: Resource) => Object.fromEntries(Object.entries(r.metadata.annotations ?? {}).filter(([k]) => k !== LAST_APPLIED));
  const written = (r: Resource) => [r.spec, r.metadata.labels ?? {}, annotations(r)];
  return sameJson(written(a), written(b));
}
