/**
 * What the ZHost status says about the host's security: whether the management guest presented a
 * trusted SSH host key (HostKeyVerified; a refusal makes the host not Ready), the key recorded on
 * trust-on-first-use, and whether SMAPI runs over plain TCP (TransportSecure=False is a warning).
 */
import type { ZHost, ZHostStatus } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import { HostKeyRejectedError, type Hypervisor } from '../../hypervisor/index.js';
import type { EventRecorder } from '../../runtime/events.js';
import { findCondition, mergeConditions, type ConditionInput } from '../conditions.js';

export interface HostKeyObservation {
  /** fingerprint of the accepted key */
  accepted?: string;
  refusal?: HostKeyRejectedError;
  /** the management guest could not be reached for another reason (it does not change Ready here) */
  unreachable?: string;
}

/** Connects the management guest if needed, which checks its host key; no command is run. */
export async function observeHostKey(hv: Hypervisor): Promise<HostKeyObservation | undefined> {
  if (!hv.mgmt?.verifyHost) return undefined;
  try {
    return { accepted: await hv.mgmt.verifyHost() };
  } catch (err) {
    if (err instanceof HostKeyRejectedError) return { refusal: err };
    if (err instanceof HypervisorError) return { unreachable: err.message };
    throw err;
  }
}

function hostKeyCondition(o: HostKeyObservation): ConditionInput {
  if (o.refusal) return { type: 'HostKeyVerified', status: 'False', reason: o.refusal.reason, message: o.refusal.message };
  if (o.unreachable) return { type: 'HostKeyVerified', status: 'Unknown', reason: 'ManagementUnreachable', message: o.unreachable };
  return { type: 'HostKeyVerified', status: 'True', reason: 'Verified', message: `management guest host key ${o.accepted ?? '(already connected)'} is trusted` };
}

function transportCondition(host: ZHost): ConditionInput | undefined {
  const smapi = host.spec.smapi;
  if (!smapi) return undefined;
  if (!smapi.tls) {
    return { type: 'TransportSecure', status: 'False', reason: 'PlainTcp', message: `SMAPI to ${smapi.host} runs over plain TCP: the SMAPI userid and password cross the network in clear; set spec.smapi.tls` };
  }
  const pinned = smapi.tlsCertSha256 ? 'certificate fingerprint pinned' : smapi.tlsCaSecret ? `certificate checked against the CA of Secret ${smapi.tlsCaSecret}` : 'certificate checked against the system CAs';
  return { type: 'TransportSecure', status: 'True', reason: 'Tls', message: `SMAPI over TLS, ${pinned}` };
}

/** Pure: the security conditions and fields merged into a computed status; a refused host key makes it not Ready. */
export function withSecurityStatus(host: ZHost, status: ZHostStatus, hostKey: HostKeyObservation | undefined, now: Date): ZHostStatus {
  const inputs = [hostKey ? hostKeyCondition(hostKey) : undefined, transportCondition(host)].filter((c): c is ConditionInput => c !== undefined);
  if (hostKey?.refusal) {
    inputs.unshift({ type: 'Ready', status: 'False', reason: hostKey.refusal.reason, message: hostKey.refusal.message });
  }
  const next: ZHostStatus = { ...status, conditions: mergeConditions(status.conditions, inputs, now.toISOString(), host.metadata.generation) };
  if (hostKey?.refusal) next.phase = 'Unavailable';
  // trust on first use: the first accepted key is written once and never replaced
  if (host.spec.management?.trustOnFirstUse && !next.managementHostKey && hostKey?.accepted) next.managementHostKey = hostKey.accepted;
  return next;
}

/** One Warning Event each time a condition turns False (not on every refresh). */
export function recordSecurityEvents(events: EventRecorder | undefined, host: ZHost, next: ZHostStatus): void {
  for (const type of ['HostKeyVerified', 'TransportSecure']) {
    const now = findCondition(next.conditions, type);
    const before = findCondition(host.status?.conditions, type);
    if (now?.status === 'False' && (before?.status !== 'False' || before.reason !== now.reason)) events?.event(host, 'Warning', now.reason, now.message);
  }
}
