/**
 * Read → plan → act for the class: the revision the guest follows is recorded in its status before
 * anything touches the host, so a later class edit cannot change what this guest is built from. The
 * class's revisions are its own reconciler's to record: a guest taking the current one waits until it is
 * recorded, so a guest created later can still ask for it. A guest being deleted follows what it recorded.
 * The plan (preview.ts) runs this same function on a dry-run store, so it binds the class as the
 * reconciler would and records nothing.
 */
import type { ZGuest, ZGuestClass } from '../../api/index.js';
import type { StateStore } from '../../store/port.js';
import { isRevisionRecorded, planClassBinding, resolveGuest, resolveLoosely, type ResolvedZGuest } from './class.js';
import { isDeleting } from './plan.js';
import type { Problem } from './steps.js';

/** Bound (with a problem that does not stop it), stopped by a problem, or waiting for the class to record the revision. */
export type BoundGuest = { guest: ResolvedZGuest; problem?: Problem } | { problem: Problem } | { waitingFor: string };

/** `planning`: a plan binds as the reconciler will once the revision is recorded, rather than wait. */
export async function bindClass(store: StateStore, stored: ZGuest, planning = false): Promise<BoundGuest> {
  if (isDeleting(stored)) return { guest: resolveLoosely(stored) };
  const cls = stored.spec.class ? await store.get<ZGuestClass>('ZGuestClass', { name: stored.spec.class }) : undefined;
  const { binding, record, problem } = planClassBinding(stored, cls);
  if (record && cls && binding && !planning && !isRevisionRecorded(cls, binding.revision)) {
    return { waitingFor: `ZGuestClass ${cls.metadata.name} to record revision ${binding.revision}` };
  }
  let guest = stored;
  if (record) {
    const { class: _old, ...rest } = stored.status ?? {};
    guest = await store.updateStatus<ZGuest>({ ...stored, status: binding ? { ...rest, class: binding } : rest });
  }
  if (problem && !binding) return { problem };
  const resolved = resolveGuest(guest, binding);
  return 'problem' in resolved ? resolved : { guest: resolved.guest, problem };
}
