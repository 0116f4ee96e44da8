/**
 * Server side of `zvm-operator plan`: what applying one manifest would change, written nowhere. The
 * resource is merged as apply would merge it; a ZGuest is then planned against its host by the
 * reconciler's own planner (controllers/zguest/preview.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Resource, ZGuest } from '../api/index.js';
import { DEFAULT_GUEST_DEFAULTS, type GuestDefaults } from '../controllers/zguest/definition.js';
import { hostOf } from '../controllers/zguest/ownership.js';
import { previewZGuest, type GuestPlan } from '../controllers/zguest/preview.js';
import type { HypervisorRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../store/port.js';
import { appliedOnto, manifestOf } from './admin-server.js';

export interface ResourcePlan {
  kind: string;
  namespace?: string;
  name: string;
  /** what apply would do to the resource itself */
  action: 'create' | 'update' | 'unchanged';
  /** true when the resource or its host would change */
  changes: boolean;
  /** the host calls, for kinds whose controller can plan them (ZGuest) */
  guest?: GuestPlan;
  /** why the host part is not planned */
  note?: string;
}

export interface PlanDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  log: Logger;
  defaults?: GuestDefaults;
}

export async function planManifest(deps: PlanDeps, body: unknown): Promise<ResourcePlan> {
  const { obj, def, key } = manifestOf(body);
  const current = await deps.store.get(def.kind, key);
  const next: Resource = current ? appliedOnto(current, obj) : { ...obj, status: undefined, metadata: { ...obj.metadata, creationTimestamp: new Date().toISOString() } };
  const action = !current ? 'create' : sameApplied(next, current) ? 'unchanged' : 'update';
  const base = { kind: def.kind, ...(key.namespace ? { namespace: key.namespace } : {}), name: key.name, action } as const;
  if (def.kind !== 'ZGuest') return { ...base, changes: action !== 'unchanged', note: `host calls are planned for ZGuest only; ${def.kind} shows the resource change` };
  const guest = next as ZGuest;
  const hv = deps.hypervisors.forHost(hostOf(guest));
  if (!hv) return { ...base, changes: action !== 'unchanged', note: `ZHost ${hostOf(guest)} is not known: no host calls can be planned` };
  const { items } = await deps.store.list<ZGuest>('ZGuest');
  const plan = await previewZGuest({ guest, hv, defaults: deps.defaults ?? DEFAULT_GUEST_DEFAULTS, store: deps.store, log: deps.log, guests: items, signal: AbortSignal.timeout(60_000) });
  return { ...base, changes: action !== 'unchanged' || plan.changes, guest: plan };
}

/** What an apply writes: spec, labels and annotations (an absent map is an empty one). */
function sameApplied(a: Resource, b: Resource): boolean {
  const written = (r: Resource) => [r.spec, r.metadata.labels ?? {}, r.metadata.annotations ?? {}];
  return isDeepStrictEqual(JSON.parse(JSON.stringify(written(a))), JSON.parse(JSON.stringify(written(b))));
}
