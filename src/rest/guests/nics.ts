import type { GuestNic, ZGuestSpec } from '../../api/index.js';
import { feilongErrors } from '../feilong-error.js';

type GuestInterface = NonNullable<ZGuestSpec['network']>['interfaces'][number];

/** An entry of `guest_networks` (docs/rest-interface.md §1.5 `network_list`). */
export interface NetworkInput {
  method?: string | null;
  ip_addr?: string;
  dns_addr?: string[];
  gateway_addr?: string;
  mac_addr?: string;
  cidr?: string;
  nic_vdev?: string;
  nic_id?: string;
  osa_device?: string;
  hostname?: string;
  [extra: string]: unknown;
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');

/**
 * The vdev of a new NIC (§3.9): the requested one (not within ±2 of an existing NIC base, each NIC
 * takes 3 devices), else the default 1000 or the highest base + 3.
 */
export function computeNicVdev(existing: string[], requested: string | undefined | null, userid: string): string {
  const bases = existing.map((v) => parseInt(v, 16));
  let vdev: number;
  if (requested) {
    vdev = parseInt(requested, 16);
    if (bases.some((b) => Math.abs(b - vdev) <= 2)) {
      throw feilongErrors.conflict(6, `Failed to create nic ${requested} for guest ${userid}, error: The specified virtual device number ${requested} has already been used.`, 20);
    }
  } else {
    vdev = bases.length === 0 ? 0x1000 : Math.max(...bases) + 3;
  }
  if (vdev + 2 > 0xffff) throw feilongErrors.invalidArg(`virtual device number ${hex4(vdev)} is not valid for a NIC`);
  return hex4(vdev);
}

export function toGuestNic(vdev: string, nicId?: string, mac?: string): GuestNic {
  const nic: GuestNic = { vdev };
  if (nicId) nic.nicId = nicId;
  if (mac) nic.mac = mac;
  return nic;
}

export function toGuestInterface(n: NetworkInput, nicVdev: string): GuestInterface {
  const out: GuestInterface = { nicVdev };
  if (n.ip_addr) out.ipAddr = n.ip_addr;
  if (n.cidr) out.cidr = n.cidr;
  if (n.gateway_addr) out.gatewayAddr = n.gateway_addr;
  if (n.dns_addr) out.dnsAddr = n.dns_addr;
  if (n.mac_addr) out.macAddr = n.mac_addr;
  if (n.nic_id) out.nicId = n.nic_id;
  if (n.osa_device) out.osaDevice = n.osa_device;
  if (n.hostname) out.hostname = n.hostname;
  return out;
}

/** Adds the interfaces of `networks` to a spec: each gets a NIC (an OSA is dedicated instead). */
export function planInterfaces(spec: ZGuestSpec, osVersion: string, networks: NetworkInput[]) {
  const nics = [...(spec.nics ?? [])];
  const interfaces = [...(spec.network?.interfaces ?? [])];
  const echoed = networks.map((n) => {
    const vdev = computeNicVdev(nics.map((x) => x.vdev), n.nic_vdev, spec.userid);
    if (!n.osa_device) nics.push(toGuestNic(vdev, n.nic_id, n.mac_addr));
    interfaces.push(toGuestInterface(n, vdev));
    return { ...n, nic_vdev: vdev };
  });
  return { nics, network: { osVersion, interfaces }, echoed };
}

export const sameVdev = (a: string | undefined, b: string) => parseInt(a ?? '', 16) === parseInt(b, 16);
