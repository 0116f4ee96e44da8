import { vswitchNameOf, type ZVswitch, type ZVswitchStatus } from '../../api/index.js';
import type { HypervisorError } from '../../errors.js';
import type { VswitchDetails } from '../../hypervisor/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';
import { HOST_NOT_FOUND, hostNotKnown, HYPERVISOR_ERROR } from '../kit/index.js';
import { desiredUsers, isDeleting, observedUsers, planZVswitch } from './plan.js';

export interface VswitchStatusInput {
  vswitch: ZVswitch;
  hostName: string;
  /** the switch after this reconcile acted */
  observed: VswitchDetails | undefined;
  failure?: HypervisorError;
  /** the host is not known: nothing could be observed */
  hostMissing?: boolean;
  now: Date;
}

/** Grants this resource manages and that exist: the desired ones plus earlier ones not yet revoked. */
function managedGrants(v: ZVswitch, observed: VswitchDetails | undefined): ZVswitchStatus['authorizedUsers'] {
  if (!observed) return undefined;
  const managed = new Set([...desiredUsers(v).keys(), ...(v.status?.authorizedUsers ?? []).map((u) => u.userid.toUpperCase())]);
  return [...observedUsers(observed)].filter(([u]) => managed.has(u)).map(([userid, vlanIds]) => ({ userid, vlanIds }));
}

/** Transport and VLAN mode as the host reports them (what TYPE and VLAN show, defaults included). */
function effectiveNetwork(observed: VswitchDetails | undefined): Pick<ZVswitchStatus, 'networkType' | 'vlan'> {
  if (!observed) return {};
  const id = Number(observed.vlan_id);
  const vlan = observed.vlan_awareness === 'AWARE' ? (id > 0 ? String(id) : 'AWARE') : observed.vlan_awareness || undefined;
  return { networkType: observed.transport_type || undefined, vlan };
}

function phaseOf(input: VswitchStatusInput, converged: boolean): string {
  if (isDeleting(input.vswitch)) return 'Deleting';
  if (input.hostMissing) return 'HostNotFound';
  if (input.failure) return 'Failed';
  if (!input.observed) return 'Pending';
  return converged ? 'Ready' : 'Progressing';
}

function conditionsOf(input: VswitchStatusInput, converged: boolean): ConditionInput[] {
  const { failure, observed } = input;
  const synced: ConditionInput = failure
    ? { type: 'Synced', status: 'False', reason: HYPERVISOR_ERROR, message: `${failure.fn} rc ${failure.rc} rs ${failure.rs}: ${failure.message}` }
    : input.hostMissing
      ? { type: 'Synced', status: 'False', reason: HOST_NOT_FOUND, message: hostNotKnown(input.hostName) }
      : { type: 'Synced', status: 'True', reason: 'Synced', message: 'the host matches the spec' };
  const ready: ConditionInput = observed && converged
    ? { type: 'Ready', status: 'True', reason: 'Ready', message: `vswitch ${observed.switch_name}: ${observed.switch_status}` }
    : { type: 'Ready', status: 'False', reason: observed ? 'Converging' : 'NotCreated', message: observed ? 'authorizations are converging' : 'the vswitch does not exist yet' };
  return [ready, synced];
}

/** Pure: the whole status from spec, observation and outcome. */
export function computeZVswitchStatus(input: VswitchStatusInput): ZVswitchStatus {
  const { vswitch: v, observed, failure } = input;
  const previous = v.status ?? {};
  const converged = !isDeleting(v) && observed !== undefined && planZVswitch({ vswitch: v, observed }).length === 0;
  const status: ZVswitchStatus = {
    ...previous,
    observedGeneration: v.metadata.generation,
    host: input.hostName,
    switchName: vswitchNameOf(v),
    switchStatus: observed?.switch_status,
    ...effectiveNetwork(observed),
    authorizedUsers: managedGrants(v, observed),
    details: observed ? { ...observed } : undefined,
    lastError: failure ? failure.toFields() : undefined,
    phase: phaseOf(input, converged),
  };
  status.conditions = mergeConditions(previous.conditions, conditionsOf(input, converged), input.now.toISOString(), v.metadata.generation);
  return JSON.parse(JSON.stringify(status)) as ZVswitchStatus;
}
