/**
 * Read → plan → act for the class: the revision the guest follows is recorded in status before
 * anything touches the host, so a later class edit cannot change what this guest is built from.
 * A guest being deleted follows what it recorded. The plan (preview.ts) runs this same function on a
 * dry-run store, so it binds the class as the reconciler would and records nothing.
 */
import type { ZGuest, ZGuestClass } from '../../api/index.js';
import type { StateStore } from '../../store/port.js';
import { planClassBinding, rememberClassRevision, resolveGuest, resolveLoosely, type ResolvedZGuest } from './class.js';
import { isDeleting } from './plan.js';
import type { Problem } from './steps.js';

export type BoundGuest = { guest: ResolvedZGuest; problem?: Problem } | { problem: Problem };

export async function bindClass(store: StateStore, stored: ZGuest): Promise<BoundGuest> {
  if (isDeleting(stored)) return { guest: resolveLoosely(stored) };
  const cls = stored.spec.class ? await store.get<ZGuestClass>('ZGuestClass', { name: stored.spec.class }) : undefined;
  const { binding, record, problem } = planClassBinding(stored, cls);
  let guest = stored;
  if (record) {
    if (cls && binding?.revision === cls.metadata.generation) await rememberClassRevision(store, cls);
    const { class: _old, ...rest } = stored.status ?? {};
    guest = await store.updateStatus<ZGuest>({ ...stored, status: binding ? { ...rest, class: binding } : rest });
  }
  if (problem && !binding) return { problem };
  const resolved = resolveGuest(guest, binding);
  return 'problem' in resolved ? resolved : { guest: resolved.guest, problem };
}
