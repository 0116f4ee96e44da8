import type { ZGuest, ZGuestStatus } from '../../api/index.js';
import type { GuestState } from '../../hypervisor/index.js';
import type { ConditionInput } from '../conditions.js';
import { normalizeVdev } from './definition.js';
import { macIdOf, managedNicVdevs, resolveNics } from './plan-nics.js';

export const NETWORK_CONFIGURED = 'NetworkConfigured';

type NicStatus = NonNullable<ZGuestStatus['nics']>[number];

/**
 * The NICs this resource manages (in spec, or recorded earlier and still there) as the directory
 * shows them. NICDEF keeps only the MAC's last 6 digits, so `mac` is the spec's when they match.
 * The VLAN id is the requested one: the coupling written through the port carries none.
 */
export function computeNicStatus(guest: ZGuest, observed: GuestState | undefined): NicStatus[] | undefined {
  if (!observed) return undefined;
  const managed = managedNicVdevs(guest);
  const specNics = new Map(resolveNics(guest).map((n) => [n.vdev, n]));
  const raw = new Map((guest.spec.nics ?? []).map((n) => [normalizeVdev(n.vdev), n]));
  return observed.directory.nics
    .filter((n) => managed.has(normalizeVdev(n.vdev)))
    .map((n): NicStatus => {
      const vdev = normalizeVdev(n.vdev);
      const want = specNics.get(vdev);
      const given = raw.get(vdev);
      const out: NicStatus = { vdev };
      if (n.vswitch) out.vswitch = n.vswitch.toUpperCase();
      if (given?.mac && (!n.macId || n.macId.toUpperCase() === macIdOf(given.mac))) out.mac = given.mac;
      const vlan = n.vlan ?? (want?.vswitch && want.vswitch === out.vswitch ? want.vlan : undefined);
      if (vlan !== undefined) out.vlan = vlan;
      if (given?.nicId) out.nicId = given.nicId;
      return out;
    })
    .sort((a, b) => a.vdev.localeCompare(b.vdev));
}

/**
 * spec.network is recorded, not applied: writing the guest OS's network files needs an in-guest
 * agent (feilong punches a script through the reader), which the simulator and this operator lack.
 */
export function computeNetworkCondition(guest: ZGuest, observed: GuestState | undefined): ConditionInput {
  const type = NETWORK_CONFIGURED;
  const network = guest.spec.network;
  if (!network || network.interfaces.length === 0) return { type, status: 'False', reason: 'NotRequested', message: 'spec.network names no interface' };
  const present = new Set((observed?.directory.nics ?? []).map((n) => normalizeVdev(n.vdev)));
  const missing = network.interfaces.filter((i) => !i.osaDevice && i.nicVdev && !present.has(normalizeVdev(i.nicVdev))).map((i) => i.nicVdev);
  if (!observed || missing.length > 0) {
    return { type, status: 'False', reason: 'NicsMissing', message: `NIC ${missing.join(', ') || 'of the interfaces'} not yet defined` };
  }
  return {
    type,
    status: 'True',
    reason: 'InterfacesRecorded',
    message: `${network.interfaces.length} interface(s) for ${network.osVersion} recorded; the guest OS configuration files are not generated (no in-guest agent)`,
  };
}

/** The guest-OS disk configuration, recorded for the disks that exist (acting on it needs an in-guest agent). */
export function computeConfiguredDisks(guest: ZGuest, observed: GuestState | undefined): ZGuestStatus['configuredDisks'] {
  if (!observed || !guest.spec.diskConfig) return undefined;
  const present = new Set(observed.directory.disks.map((d) => normalizeVdev(d.vdev)));
  return guest.spec.diskConfig.filter((d) => present.has(normalizeVdev(d.vdev))).map((d) => ({ ...d, vdev: normalizeVdev(d.vdev) }));
}
