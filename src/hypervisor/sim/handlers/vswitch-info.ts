/** Output records of the vswitch queries, in the codec's field names (functions-network.ts). */
import type { VswitchExtendedInfo, VswitchInfo } from '../../smapi/functions.js';
import type { SimContext } from '../context.js';
import { dashedMac } from '../state.js';
import type { Vswitch } from '../state.js';

/** Running NICs coupled to a switch; a scan of running guests (queries are rare). */
function connectedAdapters(ctx: SimContext, name: string): { owner: string; vdev: string; mac: string }[] {
  const out: { owner: string; vdev: string; mac: string }[] = [];
  for (const r of ctx.state.running.values()) {
    for (const nic of r.nics.values()) if (nic.vswitch === name) out.push({ owner: r.userid, vdev: nic.vdev, mac: nic.mac });
  }
  return out.sort((a, b) => (a.owner + a.vdev).localeCompare(b.owner + b.vdev));
}

/** 1 = defined without uplink, 8 = ready with its uplink (the codes a real switch reports). */
function switchStatus(vsw: Vswitch): number {
  return vsw.realDevices.length > 0 ? 8 : 1;
}

export function extendedInfo(ctx: SimContext, vsw: Vswitch, vepa: boolean): VswitchExtendedInfo {
  const grants = [...vsw.grants.values()].sort((a, b) => a.userid.localeCompare(b.userid));
  return {
    switch_name: vsw.name,
    transport_type: vsw.transportType,
    port_type: vsw.portType,
    queue_memory_limit: vsw.queueMemoryLimit,
    routing_value: vsw.routingValue,
    vlan_awareness: vsw.vlanAware ? 'AWARE' : 'UNAWARE',
    vlan_id: String(vsw.vlanId).padStart(5, '0'),
    native_vlan_id: String(vsw.nativeVlanId).padStart(5, '0'),
    mac_address: dashedMac(vsw.mac),
    gvrp_request_attribute: 'NOGVRP',
    gvrp_enabled_attribute: 'NOGVRP',
    switch_status: String(switchStatus(vsw)),
    link_ag: 'LAG:',
    lag_interval: '0',
    lag_group: '(NOGRP)',
    IP_timeout: vsw.ipTimeout,
    switch_type: vsw.switchType,
    isolation_status: 'NOISOLATION',
    MAC_protect: 'UNSPECIFIED',
    user_port_based: vsw.portSelection,
    VLAN_counters: 'NOCOUNTERS',
    ...(vepa ? { vepa_status: 'OFF', spg_scope: '(NONE)' } : {}),
    real_device_info_array: vsw.realDevices.map((rdev) => ({
      real_device_address: rdev.padStart(4, '0'),
      virtual_device_address: '0600',
      controller_name: vsw.controllerName === '*' ? 'DTCVSW1' : vsw.controllerName,
      port_name: vsw.portName || '(NONE)',
      device_status: '1',
      device_error_status: '0',
    })),
    authorized_user_array: grants.map((g) => ({
      port_num: '0000',
      grant_userid: g.userid,
      promiscuous_mode: 'NOPROM',
      osd_sim: 'NOOSDSIM',
      vlan_array: g.vlans.map((v) => ({ user_vlan_id: String(v).padStart(4, '0') })),
    })),
    connected_adapter_array: connectedAdapters(ctx, vsw.name).map((a) => ({
      adapter_owner: a.owner,
      adapter_vdev: a.vdev,
      adapter_macaddr: dashedMac(a.mac),
      adapter_type: 'QDIO',
    })),
    uplink_structure: [],
    global_member_array: [],
  };
}

export function basicInfo(ctx: SimContext, vsw: Vswitch): VswitchInfo {
  return {
    switch_name: vsw.name,
    transport_type: vsw.transportType === 'IP' ? 1 : 2,
    port_type: vsw.portType === 'TRUNK' ? 2 : 1,
    queue_memory_limit: Number(vsw.queueMemoryLimit) || 8,
    routing_value: vsw.routingValue === 'PRIROUTER' ? 1 : 2,
    vlan_id: vsw.vlanAware ? vsw.vlanId : 0,
    native_vlan_id: vsw.nativeVlanId,
    mac_id: parseInt(vsw.mac, 16),
    gvrp_request_attribute: 0,
    gvrp_enabled_attribute: 0,
    switch_status: switchStatus(vsw),
    real_device_array: vsw.realDevices.map((rdev) => ({
      real_device_address: parseInt(rdev, 16) || 0,
      controller_name: vsw.controllerName,
      port_name: vsw.portName,
      device_status: 1,
      device_error_status: 0,
    })),
    authorized_user_array: [...vsw.grants.values()].map((g) => ({
      grant_userid: g.userid,
      vlan_array: g.vlans.map((user_vlan_id) => ({ user_vlan_id })),
    })),
    connected_adapter_array: connectedAdapters(ctx, vsw.name).map((a) => ({ adapter_owner: a.owner, image_device_number: a.vdev })),
  };
}
