/**
 * What a run did that only the guest's status records: the image it deployed and the one-shot tokens it
 * handled. A status write can still fail after the host was changed (the apiserver away for longer than
 * the write's retries); the next run would then plan from a status without them, and hold a running
 * guest at DeployRequiresStop or reboot it again. The reconciler keeps them here, per guest uid, from
 * the run that did them until a status write carrying them succeeds, and plans on them meanwhile. Kept
 * in memory only: a controller restarted in between still loses them.
 */
import type { ResolvedZGuest } from './class.js';
import type { Step } from './steps.js';
import { ACK_FIELD } from './tokens.js';

type AckStep = Extract<Step, { op: 'deployImage' | 'ackToken' }>;

const isAck = (s: Step): s is AckStep => s.op === 'deployImage' || s.op === 'ackToken';

/** The guest as it will look once these steps' acknowledgements are in its status. Pure. */
export function withAcks(guest: ResolvedZGuest, applied: readonly Step[]): ResolvedZGuest {
  const acks = applied.filter(isAck);
  if (acks.length === 0) return guest;
  const status = { ...guest.status };
  for (const s of acks) {
    if (s.op === 'deployImage') status.deployedImage = s.image;
    else status[ACK_FIELD[s.token]] = s.value;
  }
  return { ...guest, status };
}

export interface UnrecordedAcks {
  /** a run applied these steps; their acknowledgements wait for a status write */
  remember(uid: string | undefined, applied: readonly Step[]): void;
  /** a status write carrying them succeeded, or the guest is gone */
  recorded(uid: string | undefined): void;
  /** the guest with what is still unrecorded of it applied */
  applyTo(guest: ResolvedZGuest): ResolvedZGuest;
}

export function createUnrecordedAcks(): UnrecordedAcks {
  const byUid = new Map<string, AckStep[]>();
  return {
    remember(uid, applied) {
      const acks = applied.filter(isAck);
      if (uid && acks.length > 0) byUid.set(uid, [...(byUid.get(uid) ?? []), ...acks]);
    },
    recorded(uid) {
      if (uid) byUid.delete(uid);
    },
    applyTo(guest) {
      const acks = guest.metadata.uid ? byUid.get(guest.metadata.uid) : undefined;
      return acks ? withAcks(guest, acks) : guest;
    },
  };
}
