import type { ZGuest } from '../../api/index.js';
import type { DirectoryNic, GuestState } from '../../hypervisor/index.js';
import { normalizeVdev } from './definition.js';
import type { Problem, Step } from './steps.js';

/** A spec NIC with its device number normalized and its MAC reduced to what NICDEF stores. */
export interface ResolvedNic {
  vdev: string;
  macId?: string;
  /** upper case */
  vswitch?: string;
  vlan?: number;
}

/** Devices a QDIO NIC occupies (NICDEF default DEVICES 3). */
const NIC_DEVICES = 3;

/** 'aa:bb:cc:dd:ee:ff' → 'DDEEFF': NICDEF MACID is the last 6 hex digits; the prefix is the host's. */
export function macIdOf(mac: string): string {
  return mac.replace(/:/g, '').slice(-6).toUpperCase();
}

export function resolveNics(guest: ZGuest): ResolvedNic[] {
  return (guest.spec.nics ?? []).map((n) => ({
    vdev: normalizeVdev(n.vdev),
    ...(n.mac ? { macId: macIdOf(n.mac) } : {}),
    ...(n.vswitch ? { vswitch: n.vswitch.toUpperCase() } : {}),
    ...(n.vlan !== undefined && n.vlan >= 0 ? { vlan: n.vlan } : {}),
  }));
}

/** Spec NICs whose device ranges overlap (each takes 3 consecutive device numbers). */
export function overlappingNics(nics: ResolvedNic[]): string[] {
  const bases = nics.map((n) => parseInt(n.vdev, 16)).sort((a, b) => a - b);
  const clash = new Set<number>();
  for (let i = 1; i < bases.length; i++) {
    if (bases[i] - bases[i - 1] < NIC_DEVICES) {
      clash.add(bases[i - 1]);
      clash.add(bases[i]);
    }
  }
  return [...clash].map((b) => normalizeVdev(b.toString(16)));
}

/** NICs this resource may change: those in spec and those status recorded as ours. Never a foreign NIC. */
export function managedNicVdevs(guest: ZGuest): Set<string> {
  const vdevs = new Set(resolveNics(guest).map((n) => n.vdev));
  for (const n of guest.status?.nics ?? []) vdevs.add(normalizeVdev(n.vdev));
  return vdevs;
}

/**
 * Pure: directory NIC changes toward the spec. NICs that left the spec are deleted only when status
 * recorded them (created by us); a NIC is created, then coupled to or uncoupled from its vswitch.
 */
export function planNics(guest: ZGuest, observed: GuestState | undefined): { steps: Step[]; problems: Problem[] } {
  const nics = resolveNics(guest);
  const clash = overlappingNics(nics);
  if (clash.length > 0) {
    return { steps: [], problems: [{ reason: 'InvalidNics', severity: 'error', message: `NICs ${clash.join(', ')} overlap: each NIC takes ${NIC_DEVICES} device numbers` }] };
  }
  const present = new Map<string, DirectoryNic>((observed?.directory.nics ?? []).map((n) => [normalizeVdev(n.vdev), n]));
  const wanted = new Set(nics.map((n) => n.vdev));
  const recorded = new Set((guest.status?.nics ?? []).map((n) => normalizeVdev(n.vdev)));
  const steps: Step[] = [];
  for (const vdev of present.keys()) {
    if (!wanted.has(vdev) && recorded.has(vdev)) steps.push({ op: 'deleteNic', vdev });
  }
  for (const nic of nics) {
    const found = present.get(nic.vdev);
    // NICDEF MACID is set when the NIC is defined: another MAC is the NIC defined again (as feilong does)
    const remade = found !== undefined && nic.macId !== undefined && found.macId?.toUpperCase() !== nic.macId;
    if (remade) steps.push({ op: 'deleteNic', vdev: nic.vdev });
    const have = remade ? undefined : found;
    if (!have) steps.push({ op: 'createNic', vdev: nic.vdev, ...(nic.macId ? { macId: nic.macId } : {}) });
    const current = have?.vswitch?.toUpperCase();
    if (nic.vswitch && nic.vswitch !== current) steps.push({ op: 'coupleNic', vdev: nic.vdev, vswitch: nic.vswitch });
    else if (!nic.vswitch && current) steps.push({ op: 'uncoupleNic', vdev: nic.vdev });
  }
  return { steps, problems: [] };
}
