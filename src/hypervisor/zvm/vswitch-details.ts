import type { VswitchExtendedInfo } from '../smapi/functions.js';
import type { VswitchDetails } from '../vswitch-port.js';

/** Code → text tables feilong applies to Virtual_Network_Vswitch_Query_Extended (docs/rest-interface.md §5.8). */
const SWITCH_STATUS: Record<string, string> = {
  1: 'Virtual switch defined.',
  2: 'Controller not available.',
  3: 'Operator intervention required.',
  4: 'Disconnected.',
  5: 'Virtual devices attached to controller. Normally a transient state.',
  6: 'OSA initialization in progress. Normally a transient state.',
  7: 'OSA device not ready',
  8: 'OSA device ready.',
  9: 'OSA devices being detached. Normally a transient state.',
  10: 'Virtual switch delete pending. Normally a transient state.',
  11: 'Virtual switch failover recovering. Normally a transient state.',
  12: 'Autorestart in progress. Normally a transient state.',
};

const DEV_STATUS: Record<string, string> = { 0: 'Device is not active.', 1: 'Device is active.', 2: 'Device is a backup device' };

const DEV_ERROR: string[] = [
  'No error.', 'Port name conflict.', 'No layer 2 support.', 'Real device does not exist.', 'Real device is attached elsewhere.',
  'Real device is not compatible type.', 'Initialization error.', 'Stalled OSA.', 'Stalled controller.', 'Controller connection severed.',
  'Primary or secondary routing conflict.', 'Device is offline.', 'Device was detached.', 'IP/Ethernet type mismatch.',
  'Insufficient memory in controller virtual machine.', 'TCP/IP configuration conflict.', 'No link aggregation support.',
  'OSA-E attribute mismatch.', 'Reserved for future use.', 'OSA-E is not ready.', 'Reserved for future use.', 'Attempting restart for device.',
  'Exclusive user error.', 'Device state is invalid.', 'Port number is invalid for device.', 'No OSA connection isolation.', 'EQID mismatch.',
  'Incompatible controller.', 'BACKUP detached.', 'BACKUP not ready.', 'BACKUP attempting restart.', 'EQID mismatch.',
  'No HiperSockets bridge support.', 'HiperSockets bridge error.',
];

/** smcli prints `(NONE)` where feilong shows `NONE`; `LAG:` is shown as `LAG`. */
function clean(value: string | undefined): string {
  const v = (value ?? '').trim();
  if (v === '(NONE)') return 'NONE';
  return v.endsWith(':') ? v.slice(0, -1) : v;
}

/** A code outside feilong's table shows as 'Unknown', as its query_vswitch does. */
const translate = (table: Record<string, string> | string[], code: string): string =>
  (table as Record<string, string>)[String(Number(code))] ?? 'Unknown';

/** One decoded Query_Extended record in the §5.8 shape. */
export function toVswitchDetails(info: VswitchExtendedInfo): VswitchDetails {
  const details: VswitchDetails = {
    switch_name: clean(info.switch_name),
    switch_type: clean(info.switch_type),
    port_type: clean(info.port_type),
    queue_memory_limit: clean(info.queue_memory_limit),
    routing_value: clean(info.routing_value),
    vlan_awareness: clean(info.vlan_awareness),
    vlan_id: clean(info.vlan_id),
    native_vlan_id: clean(info.native_vlan_id),
    mac_address: clean(info.mac_address),
    gvrp_request_attribute: clean(info.gvrp_request_attribute),
    gvrp_enabled_attribute: clean(info.gvrp_enabled_attribute),
    switch_status: translate(SWITCH_STATUS, clean(info.switch_status)),
    link_ag: clean(info.link_ag),
    lag_interval: clean(info.lag_interval),
    lag_group: clean(info.lag_group),
    IP_timeout: clean(info.IP_timeout),
    isolation_status: clean(info.isolation_status),
    MAC_protect: clean(info.MAC_protect),
    user_port_based: clean(info.user_port_based),
    VLAN_counters: clean(info.VLAN_counters),
    transport_type: clean(info.transport_type),
    real_devices: {},
    authorized_users: {},
    adapters: {},
  };
  for (const d of info.real_device_info_array ?? []) {
    details.real_devices[clean(d.real_device_address)] = {
      vdev: clean(d.virtual_device_address),
      controller: clean(d.controller_name),
      port_name: clean(d.port_name),
      dev_status: translate(DEV_STATUS, d.device_status),
      dev_err: translate(DEV_ERROR, d.device_error_status),
    };
  }
  // feilong's query_vswitch keeps smcli's vlan_count text ("2") and only replaces it with the number 0
  // (and no ids) on an UNAWARE switch: the JSON type of vlan_count depends on the switch's awareness.
  const unaware = details.vlan_awareness === 'UNAWARE';
  for (const u of info.authorized_user_array ?? []) {
    const vlanIds = (u.vlan_array ?? []).map((v) => clean(v.user_vlan_id));
    details.authorized_users[clean(u.grant_userid)] = {
      port_num: clean(u.port_num), prom_mode: clean(u.promiscuous_mode), osd_sim: clean(u.osd_sim),
      vlan_count: unaware ? 0 : String(vlanIds.length), vlan_ids: unaware ? [] : vlanIds,
    };
  }
  for (const a of info.connected_adapter_array ?? []) {
    details.adapters[`${clean(a.adapter_owner)}_${clean(a.adapter_vdev)}`] = { mac: clean(a.adapter_macaddr), type: clean(a.adapter_type) };
  }
  return details;
}
