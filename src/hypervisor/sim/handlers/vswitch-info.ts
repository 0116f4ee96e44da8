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

/** Error code of a real device: 4 = attached elsewhere (an earlier switch already uses it). */
function deviceError(ctx: SimContext, vsw: Vswitch, rdev: string): number {
  for (const other of ctx.state.vswitches.values()) {
    if (other.name === vsw.name) return 0;
    if (other.realDevices.includes(rdev)) return 4;
  }
  return 0;
}

const connected = (vsw: Vswitch) => (vsw.connection ?? 'CONNECT') === 'CONNECT';

/** 1 defined (no uplink), 4 disconnected, 7 OSA not ready (no usable device), 8 ready (the codes a real switch reports). */
function switchStatus(ctx: SimContext, vsw: Vswitch): number {
  if (vsw.realDevices.length === 0) return 1;
  if (!connected(vsw)) return 4;
  return vsw.realDevices.some((d) => deviceError(ctx, vsw, d) === 0) ? 8 : 7;
}

/** The first usable device is active, the others are backups; a device in error is not active. */
function deviceStatus(ctx: SimContext, vsw: Vswitch, rdev: string): number {
  if (!connected(vsw) || deviceError(ctx, vsw, rdev) !== 0) return 0;
  const usable = vsw.realDevices.filter((d) => deviceError(ctx, vsw, d) === 0);
  return usable[0] === rdev ? 1 : 2;
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
    gvrp_request_attribute: vsw.gvrp ?? 'NOGVRP',
    gvrp_enabled_attribute: vsw.gvrp ?? 'NOGVRP',
    switch_status: String(switchStatus(ctx, vsw)),
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
    real_device_info_array: vsw.realDevices.map((rdev, i) => ({
      real_device_address: rdev.padStart(4, '0'),
      virtual_device_address: (0x600 + 3 * i).toString(16).toUpperCase().padStart(4, '0'),
      controller_name: vsw.controllerName === '*' ? 'DTCVSW1' : vsw.controllerName,
      port_name: vsw.portName || '(NONE)',
      device_status: String(deviceStatus(ctx, vsw, rdev)),
      device_error_status: String(deviceError(ctx, vsw, rdev)),
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
    // IBM: 1 NONROUTER, 2 PRIROUTER; an ETHERNET switch, which has no routing value, reports 1 (real captures)
    routing_value: vsw.routingValue === 'PRIROUTER' ? 2 : 1,
    vlan_id: vsw.vlanAware ? vsw.vlanId : 0,
    native_vlan_id: vsw.nativeVlanId,
    mac_id: parseInt(vsw.mac, 16),
    // IBM: 1 requested / enabled, 2 not; GVRP is enabled only when requested on a switch with an active uplink
    gvrp_request_attribute: vsw.gvrp === 'GVRP' ? 1 : 2,
    gvrp_enabled_attribute: vsw.gvrp === 'GVRP' && vsw.realDevices.some((d) => deviceStatus(ctx, vsw, d) === 1) ? 1 : 2,
    switch_status: switchStatus(ctx, vsw),
    real_device_array: vsw.realDevices.map((rdev) => ({
      real_device_address: parseInt(rdev, 16) || 0,
      controller_name: vsw.controllerName,
      port_name: vsw.portName,
      device_status: deviceStatus(ctx, vsw, rdev),
      device_error_status: deviceError(ctx, vsw, rdev),
    })),
    authorized_user_array: [...vsw.grants.values()].map((g) => ({
      grant_userid: g.userid,
      vlan_array: g.vlans.map((user_vlan_id) => ({ user_vlan_id })),
    })),
    connected_adapter_array: connectedAdapters(ctx, vsw.name).map((a) => ({ adapter_owner: a.owner, image_device_number: a.vdev })),
  };
}
