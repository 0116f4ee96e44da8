import { hostOf, type ZGuest } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import type { Step } from './steps.js';

/** SMAPI rc 436 rs 4: the INCLUDE statement names a directory profile z/VM does not have (smapi.md, profile errors). */
const PROFILE_ERROR = 436;
const PROFILE_NOT_FOUND = 4;

/** The profile a directory write named: the definition's, or the INCLUDE of a rewrite of the profile family. */
function profileOf(step: Step): string | undefined {
  if (step.op === 'createGuest') return step.definition.profile;
  if (step.op === 'rewriteDirectory') return step.statements?.profile?.[0]?.split(/\s+/)[1];
  return undefined;
}

/**
 * Pure: a terminal refusal in words that say what to do, for the refusals whose codes alone do not (a raw
 * `rc 436 rs 4` names no profile). Keeps fn, rc and rs, so status, REST and events carry the same codes;
 * any other refusal is returned as it is.
 */
export function explainRefusal(step: Step, err: HypervisorError, guest: ZGuest): HypervisorError {
  const profile = profileOf(step);
  if (err.rc !== PROFILE_ERROR || err.rs !== PROFILE_NOT_FOUND || !profile) return err;
  // a class's values are merged into the spec the controller acts on: with a class, either may name it
  const where = guest.spec.class ? `spec.profile of the guest or of its ZGuestClass ${guest.spec.class}`
    : guest.spec.profile ? 'spec.profile' : "spec.profile (or the ZHost's spec.defaults.profile)";
  const message = `directory profile ${profile} does not exist on host ${hostOf(guest)} (included profile not found): create profile ${profile} on z/VM, or name an existing profile in ${where}`;
  return new HypervisorError(err.fn, err.rc, err.rs, message, { retryable: err.retryable, cause: err });
}
