import type { CallOptions } from './port.js';

/** What Virtual_Network_Vswitch_Create_Extended needs (docs/rest-interface.md §3.10); upper-case values. */
export interface VswitchDefinition {
  name: string;
  /** up to three real device numbers */
  rdev?: string[];
  /** a userid or '*' */
  controller?: string;
  connection?: 'CONNECT' | 'DISCONNECT' | 'NOUPLINK';
  networkType?: 'IP' | 'ETHERNET';
  /** only with networkType IP */
  router?: 'NONROUTER' | 'PRIROUTER';
  /** 'UNAWARE', 'AWARE' or a VLAN id 1-4094 */
  vid?: string;
  portType?: 'ACCESS' | 'TRUNK';
  gvrp?: 'GVRP' | 'NOGVRP';
  queueMem?: number;
  nativeVid?: number;
  persist?: boolean;
}

export interface VswitchRealDeviceDetails {
  vdev: string;
  controller: string;
  port_name: string;
  dev_status: string;
  dev_err: string;
}

export interface VswitchUserDetails {
  port_num: string;
  prom_mode: string;
  osd_sim: string;
  /** smcli's count text on a VLAN-aware switch, the number 0 on an UNAWARE one (feilong smtclient.query_vswitch). */
  vlan_count: string | 0;
  vlan_ids: string[];
}

/**
 * One switch as GET /vswitches/{name} shows it (docs/rest-interface.md §5.8): the 21 attribute strings,
 * then real devices by rdev, authorized users by userid and coupled adapters by `<owner>_<vdev>`.
 */
export interface VswitchDetails {
  switch_name: string;
  switch_type: string;
  port_type: string;
  queue_memory_limit: string;
  routing_value: string;
  vlan_awareness: string;
  vlan_id: string;
  native_vlan_id: string;
  mac_address: string;
  gvrp_request_attribute: string;
  gvrp_enabled_attribute: string;
  switch_status: string;
  link_ag: string;
  lag_interval: string;
  lag_group: string;
  IP_timeout: string;
  isolation_status: string;
  MAC_protect: string;
  user_port_based: string;
  VLAN_counters: string;
  transport_type: string;
  real_devices: Record<string, VswitchRealDeviceDetails>;
  authorized_users: Record<string, VswitchUserDetails>;
  adapters: Record<string, { mac: string; type: string }>;
}

/**
 * Virtual switches of one host. Every mutation is idempotent in the sense of the Hypervisor port:
 * deleting an absent switch and revoking a user who holds no grant are success; creating an
 * existing switch fails with 212/36 (the caller decides whether that is adoption or conflict).
 */
export interface VswitchOps {
  list(opts?: CallOptions): Promise<string[]>;
  /** undefined when the switch does not exist (212/40) */
  describe(name: string, opts?: CallOptions): Promise<VswitchDetails | undefined>;
  create(def: VswitchDefinition, opts?: CallOptions): Promise<void>;
  delete(name: string, opts?: CallOptions): Promise<void>;
  /** Authorizes a user, adding these VLAN ids (none: an untagged grant). */
  grant(name: string, userid: string, vlanIds: number[], opts?: CallOptions): Promise<void>;
  revoke(name: string, userid: string, opts?: CallOptions): Promise<void>;
}
