import type { CallOptions } from './port.js';

/** System_WWPN_Query's device status. */
export type FcpState = 'active' | 'free' | 'offline';

/** One FCP device of the host as z/VM reports it. */
export interface FcpDevice {
  /** 4 hex digits, lower case (feilong's FCP DB spelling) */
  fcp: string;
  /** NPIV WWPN, 16 hex digits lower case */
  wwpnNpiv: string;
  /** physical WWPN of the channel, 16 hex digits lower case */
  wwpnPhy: string;
  /** 2 hex digits, upper case */
  chpid: string;
  /** physical channel id of the CHPID, 4 hex digits upper case (from the management guest: mgmt/pchids.ts); absent when unknown */
  pchid?: string;
  state: FcpState;
  /** the logged-on guest the device is attached to, upper case */
  owner?: string;
}

/**
 * FCP devices of one host (Hypervisor.fcp): the inventory and dedicating a device to a guest.
 * Both mutations are idempotent: dedicating what is already dedicated and undedicating what is
 * not are success. `active` also attaches to / detaches from the running guest when logged on.
 */
export interface FcpOps {
  queryFcps(opts?: CallOptions): Promise<FcpDevice[]>;
  dedicate(userid: string, fcp: string, opts?: CallOptions & { vdev?: string; readonly?: boolean }): Promise<void>;
  undedicate(userid: string, fcp: string, opts?: CallOptions & { vdev?: string }): Promise<void>;
}
