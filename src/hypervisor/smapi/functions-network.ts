/**
 * Parameter and output shapes of the networking SMAPI functions (see functions.ts for the rules).
 * Keyword-list parameters (`kvlist`, `kvlist4`) are one optional string field per keyword; an
 * empty or absent value is not sent.
 */

/** Virtual_Network_Adapter_Create_Extended_DM: `kvlist4` (int4 total + key=value\0 items). */
export type AdapterCreateExtendedDmParams = {
  image_device_number: string;
  adapter_type?: string;
  devices?: string;
  channel_path_id?: string;
  mac_id?: string;
};

/** Virtual_Network_Adapter_Create_Extended: plain `kvlist` (no total length). */
export type AdapterCreateExtendedParams = {
  image_device_number: string;
  adapter_type?: string;
  devices?: string;
  channel_path_id?: string;
};

/** Every adapter function that names only a vdev: `str image_device_number`. */
export type AdapterVdevParams = { image_device_number: string };

/** Connect_Vswitch(_DM): `str image_device_number`, `str switch_name`. */
export type AdapterConnectVswitchParams = { image_device_number: string; switch_name: string };

/** Virtual_Network_Adapter_Query_Extended: `kvlist4` `image_device_number=*|<vdev>`. */
export type AdapterQueryExtendedParams = { image_device_number?: string };

/** One MAC of an adapter; keys absent from the reply are null. */
export type AdapterMacInfo = {
  mac_address: string | null;
  mac_address_type: string | null;
  mac_status: string | null;
  mac_ip_version: string | null;
  mac_ip_address: string | null;
};

/** One adapter of Virtual_Network_Adapter_Query_Extended; keys absent from the reply are null. */
export type AdapterInfo = {
  adapter_address: string | null;
  port_type: string | null;
  extended_port_status: string | null;
  adapter_type: string | null;
  network_device_count: string | null;
  adapter_status: string | null;
  lan_owner: string | null;
  lan_name: string | null;
  router_status: string | null;
  device_options: string | null;
  mac_addresses: AdapterMacInfo[];
};

export type AdapterQueryExtendedOutput = { virtual_network_adapter_data?: AdapterInfo[] };

/** Virtual_Network_Vswitch_Create_Extended: plain `kvlist`. */
export type VswitchCreateExtendedParams = {
  switch_name: string;
  real_device_address?: string;
  port_name?: string;
  controller_name?: string;
  connection_value?: string;
  queue_memory_limit?: string;
  routing_value?: string;
  transport_type?: string;
  vlan_id?: string;
  port_type?: string;
  persist?: string;
  gvrp_value?: string;
  native_vlanid?: string;
  vswitch_type?: string;
  iptimeout?: string;
  port_selection?: string;
  group_name?: string;
  vswitch_global?: string;
  vswitch_domain?: string;
};

/** Virtual_Network_Vswitch_Set_Extended: plain `kvlist`; keys exactly as the vectors spell them. */
export type VswitchSetExtendedParams = {
  switch_name: string;
  grant_userid?: string;
  user_vlan_id?: string;
  revoke_userid?: string;
  real_device_address?: string;
  port_name?: string;
  controller_name?: string;
  connection_value?: string;
  queue_memory_limit?: string;
  routing_value?: string;
  port_type?: string;
  persist?: string;
  gvrp_value?: string;
  mac_id?: string;
  uplink?: string;
  nic_userid?: string;
  nic_vdev?: string;
  lacp?: string;
  interval?: string;
  group_rdev?: string;
  iptimeout?: string;
  port_isolation?: string;
  promiscuous?: string;
  MAC_protect?: string;
  VLAN_counters?: string;
  nic_portselection?: string;
  portnum?: string;
  portnum_modify?: string;
  portnum_remove?: string;
  osd_sim?: string;
  lacp_group_type?: string;
  ivl_heartbeat?: string;
  ivl_vlanid?: string;
  trace_size?: string;
  vepa?: string;
  vlan_delete?: string;
  vlan_port_add?: string;
  vlan_port_remove?: string;
};

/** Virtual_Network_Vswitch_Delete_Extended: plain `kvlist`. */
export type VswitchDeleteExtendedParams = { switch_name: string; persist?: string };

/** Virtual_Network_Vswitch_Query_Extended: plain `kvlist`. */
export type VswitchQueryExtendedParams = { switch_name: string; vepa_status?: string };

/** "rdev vdev controller portname dev_status dev_err" */
export type VswitchRealDeviceText = {
  real_device_address: string;
  virtual_device_address: string;
  controller_name: string;
  port_name: string;
  device_status: string;
  device_error_status: string;
};

/** "port_num userid promiscuous osd_sim vlan_count [vlan ids…]" */
export type VswitchAuthorizedUserText = {
  port_num: string;
  grant_userid: string;
  promiscuous_mode: string;
  osd_sim: string;
  vlan_array: { user_vlan_id: string }[];
};

/** "owner vdev mac type" */
export type VswitchConnectedAdapterText = {
  adapter_owner: string;
  adapter_vdev: string;
  adapter_macaddr: string;
  adapter_type: string;
};

/** "userid vdev error_status" */
export type VswitchUplinkText = {
  uplink_NIC_userid: string;
  uplink_NIC_vdev: string;
  uplink_NIC_error_status: string;
};

/** "member_name member_state" */
export type VswitchGlobalMemberText = { member_name: string; member_state: string };

/**
 * One switch of Virtual_Network_Vswitch_Query_Extended. The attribute line is blank-separated in
 * this field order; `link_ag` `lag_interval` `lag_group` carry e.g. "LAG:" "0" "(NOGRP)".
 * vepa_status and spg_scope are the optional trailing tokens.
 */
export type VswitchExtendedInfo = {
  switch_name: string;
  transport_type: string;
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
  switch_type: string;
  isolation_status: string;
  MAC_protect: string;
  user_port_based: string;
  VLAN_counters: string;
  vepa_status?: string;
  spg_scope?: string;
  real_device_info_array: VswitchRealDeviceText[];
  authorized_user_array: VswitchAuthorizedUserText[];
  connected_adapter_array: VswitchConnectedAdapterText[];
  uplink_structure: VswitchUplinkText[];
  global_member_array: VswitchGlobalMemberText[];
};

export type VswitchQueryExtendedOutput = { vswitch_array?: VswitchExtendedInfo[] };

/** Virtual_Network_Vswitch_Query (binary layout): `str switch_name` (`*` for all). */
export type VswitchQueryParams = { switch_name: string };

export type VswitchRealDevice = {
  real_device_address: number;
  controller_name: string;
  port_name: string;
  device_status: number;
  device_error_status: number;
};

export type VswitchAuthorizedUser = { grant_userid: string; vlan_array: { user_vlan_id: number }[] };

export type VswitchConnectedAdapter = { adapter_owner: string; image_device_number: string };

/** One switch of Virtual_Network_Vswitch_Query; enumerations as sent (1 IP / 2 ETHERNET …). */
export type VswitchInfo = {
  switch_name: string;
  transport_type: number;
  port_type: number;
  queue_memory_limit: number;
  routing_value: number;
  vlan_id: number;
  native_vlan_id: number;
  mac_id: number;
  gvrp_request_attribute: number;
  gvrp_enabled_attribute: number;
  switch_status: number;
  real_device_array: VswitchRealDevice[];
  authorized_user_array: VswitchAuthorizedUser[];
  connected_adapter_array: VswitchConnectedAdapter[];
};

export type VswitchQueryOutput = { vswitch_array?: VswitchInfo[] };
