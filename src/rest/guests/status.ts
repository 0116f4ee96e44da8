import { powerOfSpec, type SpecPowerState, type ZGuest } from '../../api/index.js';

export function isProvisioned(guest: ZGuest): boolean {
  return guest.status?.conditions?.find((c) => c.type === 'Provisioned')?.status === 'True';
}

/** spec.powerState → the observed value the controller reports once converged. */
export function observedPowerOf(desired: SpecPowerState): string {
  return powerOfSpec(desired);
}
