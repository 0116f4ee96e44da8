/** Output codecs of the adapter and vswitch query functions (docs/smapi.md §1.9). */
import type {
  AdapterInfo, AdapterMacInfo, AdapterQueryExtendedOutput, VswitchExtendedInfo, VswitchInfo,
  VswitchQueryExtendedOutput, VswitchQueryOutput,
} from './functions.js';
import { codec, prefixedList, readAll, readCstrs, readPrefixed, writeCstrs } from './output-codec.js';
import type { WireReader, WireWriter } from './wire.js';
import { SmapiFrameError } from './wire.js';

const ADAPTER_KEYS = [
  'adapter_address', 'port_type', 'extended_port_status', 'adapter_type', 'network_device_count',
  'adapter_status', 'lan_owner', 'lan_name', 'router_status', 'device_options',
] as const;
const MAC_KEYS = ['mac_address', 'mac_address_type', 'mac_status', 'mac_ip_version', 'mac_ip_address'] as const;

function newAdapter(): AdapterInfo {
  const a = Object.fromEntries(ADAPTER_KEYS.map((k) => [k, null])) as Omit<AdapterInfo, 'mac_addresses'>;
  return { ...a, mac_addresses: [] };
}

function newMac(): AdapterMacInfo {
  return Object.fromEntries(MAC_KEYS.map((k) => [k, null])) as AdapterMacInfo;
}

/** A key=value stream: adapter_address opens an adapter, mac_address a MAC, *_info_end closes. */
function readAdapters(items: readonly string[]): AdapterInfo[] {
  const adapters: AdapterInfo[] = [];
  let adapter: AdapterInfo | undefined;
  let mac: AdapterMacInfo | undefined;
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    if (key === 'adapter_address') adapters.push((adapter = newAdapter()));
    if (key === 'mac_address' && adapter) adapter.mac_addresses.push((mac = newMac()));
    if (key === 'mac_info_end') mac = undefined;
    if (key === 'adapter_info_end') adapter = mac = undefined;
    if (mac && (MAC_KEYS as readonly string[]).includes(key)) (mac as Record<string, string | null>)[key] = value;
    else if (adapter && (ADAPTER_KEYS as readonly string[]).includes(key)) (adapter as unknown as Record<string, string | null>)[key] = value;
  }
  return adapters;
}

function writeAdapters(w: WireWriter, adapters: readonly AdapterInfo[]): void {
  w.cstr(`adapter_count=${adapters.length}`);
  for (const a of adapters) {
    for (const k of ADAPTER_KEYS) if (a[k] !== null) w.cstr(`${k}=${a[k]}`);
    if (a.mac_addresses.length > 0) w.cstr(`mac_count=${a.mac_addresses.length}`);
    for (const m of a.mac_addresses) {
      for (const k of MAC_KEYS) if (m[k] !== null) w.cstr(`${k}=${m[k]}`);
      w.cstr('mac_info_end');
    }
    w.cstr('adapter_info_end');
  }
}

export const adapterQueryExtendedOutput = codec<AdapterQueryExtendedOutput>({
  decode: (r) => ({ virtual_network_adapter_data: readAdapters(readPrefixed(r, readCstrs)) }),
  encode: (w, o) => {
    const data = o.virtual_network_adapter_data;
    if (data) w.prefixed((a) => writeAdapters(a, data));
  },
});

const ATTR_KEYS = [
  'switch_name', 'transport_type', 'port_type', 'queue_memory_limit', 'routing_value', 'vlan_awareness',
  'vlan_id', 'native_vlan_id', 'mac_address', 'gvrp_request_attribute', 'gvrp_enabled_attribute',
  'switch_status', 'link_ag', 'lag_interval', 'lag_group', 'IP_timeout', 'switch_type', 'isolation_status',
  'MAC_protect', 'user_port_based', 'VLAN_counters', 'vepa_status', 'spg_scope',
] as const;
const REQUIRED_ATTRS = 21;

/** Splits one text line into named tokens; the last name takes no more than one token. */
function tokens<K extends string>(line: string, keys: readonly K[]): Record<K, string> {
  const parts = line.split(' ').filter((t) => t !== '');
  if (parts.length < keys.length) throw new SmapiFrameError(`expected ${keys.length} tokens in ${JSON.stringify(line)}`);
  return Object.fromEntries(keys.map((k, i) => [k, parts[i]])) as Record<K, string>;
}

type ExtArrays = Pick<VswitchExtendedInfo, 'real_device_info_array' | 'authorized_user_array'
  | 'connected_adapter_array' | 'uplink_structure' | 'global_member_array'>;

function readAttrs(line: string): Omit<VswitchExtendedInfo, keyof ExtArrays> {
  const parts = line.split(' ').filter((t) => t !== '');
  if (parts.length < REQUIRED_ATTRS) throw new SmapiFrameError(`vswitch attribute line too short: ${JSON.stringify(line)}`);
  const out: Record<string, string> = {};
  ATTR_KEYS.forEach((k, i) => { if (parts[i] !== undefined) out[k] = parts[i] as string; });
  return out as unknown as Omit<VswitchExtendedInfo, keyof ExtArrays>;
}

function readAuthorizedUser(line: string): VswitchExtendedInfo['authorized_user_array'][number] {
  const parts = line.split(' ').filter((t) => t !== '');
  if (parts.length < 5) throw new SmapiFrameError(`authorized user line too short: ${JSON.stringify(line)}`);
  const [port_num, grant_userid, promiscuous_mode, osd_sim] = parts as [string, string, string, string];
  return { port_num, grant_userid, promiscuous_mode, osd_sim, vlan_array: parts.slice(5).map((user_vlan_id) => ({ user_vlan_id })) };
}

function readLines<T>(r: WireReader, parse: (line: string) => T): T[] {
  return readPrefixed(r, readCstrs).map(parse);
}

function readVswitchExtended(r: WireReader): VswitchExtendedInfo {
  const attrs = readAttrs(readPrefixed(r, (a) => a.cstr()));
  return {
    ...attrs,
    real_device_info_array: readLines(r, (l) => tokens(l, ['real_device_address', 'virtual_device_address',
      'controller_name', 'port_name', 'device_status', 'device_error_status'] as const)),
    authorized_user_array: readLines(r, readAuthorizedUser),
    connected_adapter_array: readLines(r, (l) => tokens(l, ['adapter_owner', 'adapter_vdev', 'adapter_macaddr', 'adapter_type'] as const)),
    uplink_structure: readLines(r, (l) => tokens(l, ['uplink_NIC_userid', 'uplink_NIC_vdev', 'uplink_NIC_error_status'] as const)),
    global_member_array: readLines(r, (l) => tokens(l, ['member_name', 'member_state'] as const)),
  };
}

function writeLines(w: WireWriter, lines: readonly string[]): void {
  w.prefixed((a) => writeCstrs(a, lines));
}

function writeVswitchExtended(w: WireWriter, v: VswitchExtendedInfo): void {
  const attrs = ATTR_KEYS.map((k) => v[k]).filter((t): t is string => t !== undefined);
  w.prefixed((a) => a.cstr(attrs.join(' ')));
  writeLines(w, v.real_device_info_array.map((d) => [d.real_device_address, d.virtual_device_address,
    d.controller_name, d.port_name, d.device_status, d.device_error_status].join(' ')));
  // "… NOOSDSIM 0 ": the VLAN count is followed by a blank, then the VLAN ids (none in the capture).
  writeLines(w, v.authorized_user_array.map((u) => `${u.port_num} ${u.grant_userid} ${u.promiscuous_mode} `
    + `${u.osd_sim} ${u.vlan_array.length} ${u.vlan_array.map((x) => x.user_vlan_id).join(' ')}`));
  writeLines(w, v.connected_adapter_array.map((c) => [c.adapter_owner, c.adapter_vdev, c.adapter_macaddr, c.adapter_type].join(' ')));
  writeLines(w, v.uplink_structure.map((u) => [u.uplink_NIC_userid, u.uplink_NIC_vdev, u.uplink_NIC_error_status].join(' ')));
  writeLines(w, v.global_member_array.map((m) => `${m.member_name} ${m.member_state}`));
}

/** `int4 vswitch_count`, then per switch `int4 struct_len` + attribute line + five line arrays. */
export const vswitchQueryExtendedOutput = codec<VswitchQueryExtendedOutput>({
  decode: (r) => {
    const count = r.uint4();
    const vswitch_array: VswitchExtendedInfo[] = [];
    for (let i = 0; i < count; i++) vswitch_array.push(readPrefixed(r, readVswitchExtended));
    return { vswitch_array };
  },
  encode: (w, o) => {
    if (!o.vswitch_array) return;
    w.int4(o.vswitch_array.length);
    for (const v of o.vswitch_array) w.prefixed((a) => writeVswitchExtended(a, v));
  },
});

function readVswitch(r: WireReader): VswitchInfo {
  return {
    switch_name: r.str(), transport_type: r.int1(), port_type: r.int1(), queue_memory_limit: r.uint4(),
    routing_value: r.int1(), vlan_id: r.uint4(), native_vlan_id: r.uint4(), mac_id: r.int8(),
    gvrp_request_attribute: r.int1(), gvrp_enabled_attribute: r.int1(), switch_status: r.int1(),
    real_device_array: readPrefixed(r, (a) => readAll(a, (x) => readPrefixed(x, (s) => ({
      real_device_address: s.uint4(), controller_name: s.str(), port_name: s.str(),
      device_status: s.int1(), device_error_status: s.int1(),
    })))),
    authorized_user_array: readPrefixed(r, (a) => readAll(a, (x) => readPrefixed(x, (s) => ({
      grant_userid: s.str(),
      vlan_array: readPrefixed(s, (v) => readAll(v, (y) => ({ user_vlan_id: y.uint4() }))),
    })))),
    connected_adapter_array: readPrefixed(r, (a) => readAll(a, (x) => readPrefixed(x, (s) => ({
      adapter_owner: s.str(), image_device_number: s.str(),
    })))),
  };
}

function writeVswitch(w: WireWriter, v: VswitchInfo): void {
  w.str(v.switch_name).int1(v.transport_type).int1(v.port_type).int4(v.queue_memory_limit).int1(v.routing_value)
    .int4(v.vlan_id).int4(v.native_vlan_id).int8(v.mac_id).int1(v.gvrp_request_attribute)
    .int1(v.gvrp_enabled_attribute).int1(v.switch_status);
  prefixedList(w, v.real_device_array, (a, d) => a.prefixed((s) => s.int4(d.real_device_address)
    .str(d.controller_name).str(d.port_name).int1(d.device_status).int1(d.device_error_status)));
  prefixedList(w, v.authorized_user_array, (a, u) => a.prefixed((s) => {
    s.str(u.grant_userid);
    prefixedList(s, u.vlan_array, (x, vl) => x.int4(vl.user_vlan_id));
  }));
  prefixedList(w, v.connected_adapter_array, (a, c) => a.prefixed((s) => s.str(c.adapter_owner).str(c.image_device_number)));
}

/** `int4 total bytes`, then per switch `int4 struct_len` + the binary structure. */
export const vswitchQueryOutput = codec<VswitchQueryOutput>({
  decode: (r) => ({ vswitch_array: readPrefixed(r, (a) => readAll(a, (x) => readPrefixed(x, readVswitch))) }),
  encode: (w, o) => void (o.vswitch_array && prefixedList(w, o.vswitch_array, (a, v) => a.prefixed((s) => writeVswitch(s, v)))),
});
