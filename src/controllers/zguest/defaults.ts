/**
 * Where a guest's omitted values come from (docs/fields.md): its ZGuestClass, then its ZHost's
 * spec.defaults, then the built-in defaults. One pure function, used by the controller, REST and plan.
 */
import type { GuestClassValues, ZGuestSpec, ZHostSpec } from '../../api/index.js';
import { DEFAULT_GUEST_DEFAULTS, type GuestDefaults } from './definition.js';

export type HostDefaults = ZHostSpec['defaults'];

/** What a guest gets where its spec is silent (status.effective). */
export type EffectiveValues = GuestDefaults;

/** Pure: the first value given, in the order spec → class → ZHost spec.defaults → built-in. */
export function resolveGuestDefaults(input: {
  spec?: Pick<ZGuestSpec, 'maxCpus' | 'maxMemory' | 'profile'>;
  classValues?: Pick<GuestClassValues, 'maxCpus' | 'maxMemory' | 'profile'>;
  host?: HostDefaults;
  builtIn?: GuestDefaults;
}): EffectiveValues {
  const builtIn = input.builtIn ?? DEFAULT_GUEST_DEFAULTS;
  const { spec = {}, classValues = {}, host = {} } = input;
  return {
    maxCpus: spec.maxCpus ?? classValues.maxCpus ?? host.maxCpus ?? builtIn.maxCpus,
    maxMemory: (spec.maxMemory ?? classValues.maxMemory ?? host.maxMemory ?? builtIn.maxMemory).toUpperCase(),
    profile: (spec.profile ?? classValues.profile ?? host.profile ?? builtIn.profile).toUpperCase(),
    diskPool: host.diskPool ?? builtIn.diskPool,
    rootVdev: (host.rootVdev ?? builtIn.rootVdev).toUpperCase().padStart(4, '0'),
  };
}
