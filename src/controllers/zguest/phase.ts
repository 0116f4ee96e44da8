import type { PowerState } from '../../hypervisor/index.js';

export type ZGuestPhase =
  | 'Unknown'
  | 'Deleting'
  | 'Conflict'
  | 'Failed'
  | 'Provisioning'
  | 'Starting'
  | 'Stopping'
  | 'Running'
  | 'Stopped'
  | 'Paused';

/** What the phase is derived from. */
export interface PhaseFacts {
  /** the host's SMAPI has not answered past the outage grace (kit/facts.ts OutageFact) */
  unreachable: boolean;
  deleting: boolean;
  conflict: boolean;
  failed: boolean;
  provisioned: boolean;
  desired: PowerState;
  power: PowerState | undefined;
}

/** Ordered precedence (KubeVirt's printable status): the first matching row wins. */
const PHASES: [ZGuestPhase, (f: PhaseFacts) => boolean][] = [
  // nothing about the guest can be known while its host does not answer, not even a deletion's progress
  ['Unknown', (f) => f.unreachable],
  ['Deleting', (f) => f.deleting],
  ['Conflict', (f) => f.conflict],
  ['Failed', (f) => f.failed],
  ['Provisioning', (f) => !f.provisioned || f.power === undefined],
  ['Starting', (f) => f.desired !== 'off' && f.power === 'off'],
  ['Stopping', (f) => f.desired === 'off' && f.power !== 'off'],
  ['Running', (f) => f.power === 'on'],
  ['Stopped', (f) => f.power === 'off'],
  ['Paused', (f) => f.power === 'paused'],
];

export function computePhase(facts: PhaseFacts): ZGuestPhase {
  return PHASES.find(([, matches]) => matches(facts))?.[0] ?? 'Provisioning';
}
