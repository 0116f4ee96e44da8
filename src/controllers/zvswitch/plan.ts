import { VSWITCH_FINALIZER, vswitchNameOf, type ZVswitch } from '../../api/index.js';
import type { VswitchDefinition, VswitchDetails } from '../../hypervisor/index.js';

export type VswitchStep =
  | { op: 'addFinalizer' }
  | { op: 'removeFinalizer' }
  /** records in status that this controller is about to create (so owns) the switch */
  | { op: 'claim' }
  | { op: 'create'; def: VswitchDefinition }
  | { op: 'delete'; name: string }
  | { op: 'grant'; userid: string; vlanIds: number[] }
  | { op: 'revoke'; userid: string };

export interface VswitchPlanInput {
  vswitch: ZVswitch;
  /** the switch on the host; undefined when it does not exist */
  observed: VswitchDetails | undefined;
}

export const isDeleting = (v: ZVswitch) => Boolean(v.metadata.deletionTimestamp);
export const hasFinalizer = (v: ZVswitch) => (v.metadata.finalizers ?? []).includes(VSWITCH_FINALIZER);
/** Only a switch this controller created is deleted with the resource; an adopted one stays. */
export const ownsSwitch = (v: ZVswitch) => v.status?.owned === true;

export function toDefinition(v: ZVswitch): VswitchDefinition {
  const s = v.spec;
  const def: VswitchDefinition = { name: vswitchNameOf(v) };
  if (s.rdev) def.rdev = s.rdev.trim().split(/\s+/);
  if (s.controller) def.controller = s.controller.toUpperCase();
  if (s.connection) def.connection = s.connection;
  if (s.networkType) def.networkType = s.networkType;
  if (s.router) def.router = s.router;
  if (s.vid) def.vid = s.vid;
  if (s.portType) def.portType = s.portType;
  if (s.gvrp) def.gvrp = s.gvrp;
  if (s.queueMem !== undefined) def.queueMem = s.queueMem;
  if (s.nativeVid !== undefined) def.nativeVid = s.nativeVid;
  if (s.persist !== undefined) def.persist = s.persist;
  return def;
}

/** Desired grants: upper-case userid → sorted VLAN ids (-1, "no VLAN", dropped). */
export function desiredUsers(v: ZVswitch): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const u of v.spec.authorizedUsers ?? []) {
    const ids = new Set([...(out.get(u.userid.toUpperCase()) ?? []), ...(u.vlanIds ?? []).filter((id) => id > 0)]);
    out.set(u.userid.toUpperCase(), [...ids].sort((a, b) => a - b));
  }
  return out;
}

/** Observed grants: userid → VLAN ids as numbers. */
export function observedUsers(observed: VswitchDetails): Map<string, number[]> {
  return new Map(Object.entries(observed.authorized_users).map(([u, d]) => [u.toUpperCase(), d.vlan_ids.map(Number).sort((a, b) => a - b)]));
}

/** Users this controller granted before (status), so it revokes only its own grants. */
function managedUsers(v: ZVswitch): Set<string> {
  return new Set((v.status?.authorizedUsers ?? []).map((u) => u.userid.toUpperCase()));
}

function planUsers(v: ZVswitch, observed: VswitchDetails | undefined): VswitchStep[] {
  const want = desiredUsers(v);
  const have = observed ? observedUsers(observed) : new Map<string, number[]>();
  const steps: VswitchStep[] = [];
  for (const [userid, vlans] of want) {
    const current = have.get(userid);
    if (!current) {
      steps.push({ op: 'grant', userid, vlanIds: vlans });
      continue;
    }
    const extra = current.filter((id) => !vlans.includes(id));
    const missing = vlans.filter((id) => !current.includes(id));
    // a grant only adds VLAN ids: dropping one means revoking the user and granting again
    if (extra.length > 0) steps.push({ op: 'revoke', userid }, { op: 'grant', userid, vlanIds: vlans });
    else if (missing.length > 0) steps.push({ op: 'grant', userid, vlanIds: missing });
  }
  for (const userid of managedUsers(v)) {
    if (!want.has(userid) && have.has(userid)) steps.push({ op: 'revoke', userid });
  }
  return steps;
}

/** Pure: the steps that take the host from `observed` to the spec (docs/architecture.md §2 read → plan → act). */
export function planZVswitch({ vswitch, observed }: VswitchPlanInput): VswitchStep[] {
  if (isDeleting(vswitch)) {
    if (!hasFinalizer(vswitch)) return [];
    const del: VswitchStep[] = observed && ownsSwitch(vswitch) ? [{ op: 'delete', name: vswitchNameOf(vswitch) }] : [];
    return [...del, { op: 'removeFinalizer' }];
  }
  if (!hasFinalizer(vswitch)) return [{ op: 'addFinalizer' }];
  if (!observed) {
    const claim: VswitchStep[] = ownsSwitch(vswitch) ? [] : [{ op: 'claim' }];
    return [...claim, { op: 'create', def: toDefinition(vswitch) }, ...planUsers(vswitch, undefined)];
  }
  return planUsers(vswitch, observed);
}

export const isHostStep = (s: VswitchStep) => s.op === 'create' || s.op === 'delete' || s.op === 'grant' || s.op === 'revoke';
