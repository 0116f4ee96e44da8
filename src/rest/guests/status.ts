import { powerOfSpec, type Condition, type SpecPowerState, type ZGuest } from '../../api/index.js';
import { FeilongError, ModID, fromHvError } from '../feilong-error.js';

export function conditionOf(guest: ZGuest, type: string): Condition | undefined {
  return guest.status?.conditions?.find((c) => c.type === type);
}

export function observedAtLeast(guest: ZGuest, generation: number): boolean {
  return (guest.status?.observedGeneration ?? 0) >= generation;
}

/** Synced=False reasons of the controller that carry no hypervisor error, as feilong answers them. */
const REASONS: Record<string, (message: string) => FeilongError> = {
  // another resource or an unmanaged guest owns the userid: feilong's "already exists" (409)
  UseridConflict: (m) => new FeilongError('ALREADY_EXISTS', { overallRC: 409, modID: ModID.guest, rc: 409, rs: 1, errmsg: m }),
  InvalidResize: (m) => new FeilongError('CONFLICT', { overallRC: 409, modID: ModID.guest, rc: 409, rs: 1, errmsg: m }),
  InvalidDisks: (m) => new FeilongError('INVALID_INPUT', { overallRC: 100, modID: ModID.zvmsdk, rc: 100, rs: 3, errmsg: `Invalid API arg format, error: ${m}` }),
  InvalidNics: (m) => new FeilongError('INVALID_INPUT', { overallRC: 100, modID: ModID.zvmsdk, rc: 100, rs: 3, errmsg: `Invalid API arg format, error: ${m}` }),
  // moved to another SSI member: like feilong's migrated guests, not found here
  Relocated: (m) => new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.guest, rc: 404, rs: 1, errmsg: m }),
  DiskRemovalRequiresStop: (m) => new FeilongError('NOT_SUPPORTED', { overallRC: 501, modID: ModID.guest, rc: 501, rs: 1, errmsg: m }),
};

/**
 * The controller's verdict that the last reconcile failed (Synced=False), as the error to answer
 * with: status.lastError verbatim when recorded, else a generic internal envelope. `since` ignores
 * a verdict older than that instant (ISO time), e.g. one recorded before a delete was requested.
 */
export function computeSyncFailure(guest: ZGuest, since?: string): FeilongError | undefined {
  const synced = conditionOf(guest, 'Synced');
  if (!synced || synced.status !== 'False') return undefined;
  if (since && synced.lastTransitionTime < since) return undefined;
  if (guest.status?.lastError) return fromHvError(guest.status.lastError);
  const known = REASONS[synced.reason];
  if (known) return known(synced.message);
  return new FeilongError('INTERNAL', {
    overallRC: 500, modID: ModID.guest, rc: 500, rs: 1,
    errmsg: `Unexpected internal error in ZVM SDK, error: ${synced.reason}: ${synced.message}`,
  });
}

export function isProvisioned(guest: ZGuest): boolean {
  return conditionOf(guest, 'Provisioned')?.status === 'True';
}

/** spec.powerState → the observed value the controller reports once converged. */
export function observedPowerOf(desired: SpecPowerState): string {
  return powerOfSpec(desired);
}
