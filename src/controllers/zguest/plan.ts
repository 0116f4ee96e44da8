import { FINALIZER, RELOCATED_TO_ANNOTATION, type ZGuest } from '../../api/index.js';
import { isDeletedForMove } from '../kit/cluster-api.js';
import type { GuestState } from '../../hypervisor/index.js';
import type { ResolvedZGuest } from './class.js';
import type { GuestDefaults } from './definition.js';
import { computeOwnership, isConflict, type Ownership } from './ownership.js';
import { planConverge } from './plan-converge.js';
import type { Plan, Step } from './steps.js';

export interface PlanInput {
  guest: ResolvedZGuest;
  /** the directory entry and power state on the host; undefined when the userid is not defined */
  observed: GuestState | undefined;
  defaults: GuestDefaults;
  /** namespace/name of an older ZGuest claiming the same host and userid */
  claimedBy?: string;
}

export function hasFinalizer(guest: ZGuest): boolean {
  return guest.metadata.finalizers?.includes(FINALIZER) ?? false;
}

export function isDeleting(guest: ZGuest): boolean {
  return Boolean(guest.metadata.deletionTimestamp);
}

/** The finalizer goes on before anything touches z/VM, so a delete can never leak a guest. */
export function planFinalizer(guest: ZGuest): Step | undefined {
  return !isDeleting(guest) && !hasFinalizer(guest) ? { op: 'addFinalizer' } : undefined;
}

/** Pure: the ordered minimal steps from the observed state toward the spec. */
export function planZGuest(input: PlanInput): Plan {
  const { guest, observed, claimedBy } = input;
  const ownership = computeOwnership(guest, observed, claimedBy);
  if (isDeleting(guest)) return { steps: planDeletion(guest, observed, ownership), problems: [], ownership };
  const finalizer = planFinalizer(guest);
  if (finalizer) return { steps: [finalizer], problems: [], ownership };
  const relocatedTo = guest.metadata.annotations?.[RELOCATED_TO_ANNOTATION];
  if (relocatedTo) {
    // moved (or being moved) to another SSI member by a ZGuestAction: not ours to power or change here
    return { steps: [], problems: [{ reason: 'Relocated', severity: 'blocked', message: `the guest was moved to ${relocatedTo}; it is not managed on this host` }], ownership };
  }
  if (isConflict(ownership)) {
    return { steps: [], problems: [{ reason: 'UseridConflict', severity: 'conflict', message: conflictMessage(input, ownership) }], ownership };
  }
  return { ...planConverge(input, ownership), ownership };
}

/** Only a guest this resource owns (or adopted) is deleted; Orphan and foreign guests stay on the host. */
function planDeletion(guest: ZGuest, observed: GuestState | undefined, ownership: Ownership): Step[] {
  if (!hasFinalizer(guest)) return [];
  // `clusterctl move` deletes the source copy: the guest is the target copy's now
  if (isDeletedForMove(guest)) return [{ op: 'removeFinalizer' }];
  const mayDelete = ownership === 'owned' || ownership === 'adopted';
  const policy = guest.spec.deletionPolicy ?? 'Delete';
  // the directory entry of a relocated guest is shared with the member it runs on: never delete it
  const relocated = Boolean(guest.metadata.annotations?.[RELOCATED_TO_ANNOTATION]);
  if (policy === 'Delete' && observed && mayDelete && !relocated) return [{ op: 'deleteGuest' }, { op: 'removeFinalizer' }];
  return [observed ? { op: 'removeFinalizer', leftOnHost: true } : { op: 'removeFinalizer' }];
}

function conflictMessage(input: PlanInput, ownership: Ownership): string {
  const userid = input.guest.spec.userid.toUpperCase();
  if (ownership === 'claimed') return `userid ${userid} is already claimed on this host by ZGuest ${input.claimedBy}`;
  return `userid ${userid} already exists on the host and was not created by this resource; set spec.adopt to take it over`;
}
