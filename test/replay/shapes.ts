/**
 * The JSON types of the reference's `output` per API, as its code builds them (feilong zvmsdk/*.py,
 * docs/rest-interface.md §1.3 and §5): what a typed client such as feilong-client-go decodes.
 * A shape is a leaf type, `[elem]` (a list of elem), `{ key: shape }` (exactly those keys),
 * `{ '*': shape }` (a dict with any keys) or `open({...})` (those keys, others allowed).
 */
export type Shape = 'str' | 'int' | 'num' | 'bool' | 'null' | 'any' | 'str|null' | 'int|null' | 'str|int' | Shape[] | { [key: string]: Shape };
const OPEN = '$open';

export function open(keys: Record<string, Shape>): Record<string, Shape> {
  return { ...keys, [OPEN]: 'any' };
}

function leafMismatch(shape: string, v: unknown): string | undefined {
  const ok: Record<string, (x: unknown) => boolean> = {
    str: (x) => typeof x === 'string',
    int: (x) => Number.isInteger(x),
    num: (x) => typeof x === 'number',
    bool: (x) => typeof x === 'boolean',
    null: (x) => x === null,
    any: () => true,
    'str|null': (x) => x === null || typeof x === 'string',
    'int|null': (x) => x === null || Number.isInteger(x),
    'str|int': (x) => typeof x === 'string' || Number.isInteger(x),
  };
  return ok[shape](v) ? undefined : `expected ${shape}, got ${JSON.stringify(v)}`;
}

/** Every place where value differs from shape, as `path: problem` lines; [] when it matches. */
export function shapeMismatches(shape: Shape, value: unknown, path = 'output'): string[] {
  if (typeof shape === 'string') {
    const m = leafMismatch(shape, value);
    return m ? [`${path}: ${m}`] : [];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected a list, got ${JSON.stringify(value)}`];
    return value.flatMap((v, i) => shapeMismatches(shape[0], v, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected a dict, got ${JSON.stringify(value)}`];
  const obj = value as Record<string, unknown>;
  if ('*' in shape) return Object.entries(obj).flatMap(([k, v]) => shapeMismatches(shape['*'], v, `${path}.${k}`));
  const keys = Object.keys(shape).filter((k) => k !== OPEN);
  const missing = keys.filter((k) => !(k in obj)).map((k) => `${path}.${k}: missing`);
  const extra = OPEN in shape ? [] : Object.keys(obj).filter((k) => !(k in shape)).map((k) => `${path}.${k}: not in the reference's output`);
  return [...missing, ...extra, ...keys.filter((k) => k in obj).flatMap((k) => shapeMismatches(shape[k], obj[k], `${path}.${k}`))];
}

const createdDisk = open({ size: 'str', vdev: 'str', disk_pool: 'str' });
const nicRow: Record<string, Shape> = { userid: 'str', interface: 'str', switch: 'str|null', port: 'str|null', comments: 'str|null' };
const templateFields: Record<string, Shape> = {
  id: 'str', name: 'str', description: 'str', host_default: 'bool', storage_providers: ['str'], min_fcp_paths_count: 'int',
};

/**
 * One path of a template's statistics as feilong's current volumeop.py builds them: counts are dicts
 * keyed by PCHID (plus `notfound`), which feilong-client-go decodes as map[string]int.
 */
const pathStatistics: Shape = {
  total: 'str', total_count: { '*': 'int' }, single_fcp: 'str', range_fcp: 'str', available: 'str', available_count: { '*': 'int' },
  allocated: 'str', reserve_only: 'str', connection_only: 'str', unallocated_but_active: { '*': 'str' }, allocated_but_free: 'str',
  notfound: 'str', offline: 'str', chpids: { '*': 'str' }, pchids: { '*': 'str' },
};
const templateDetail = open({ ...templateFields, pchids: ['str'], pchid_to_phy_wwpn: { '*': 'str' }, statistics: { '*': pathStatistics } });

/** Output shapes by API name (the client's DATABASE key). */
export const OUTPUT_SHAPES: Record<string, Shape> = {
  version: { version: 'str', api_version: 'str', max_version: 'str', min_version: 'str' },
  smapi_health: { totalSuccess: 'int', totalFail: 'int', lastSuccess: 'str', lastFail: 'str', continuousFail: 'int', healthy: 'bool' },
  guest_list: ['str'],
  guest_create: [createdDisk],
  guest_delete: 'str',
  guest_get_definition_info: { user_direct: ['str'] },
  guest_inspect_stats: {
    '*': {
      guest_cpus: 'int', used_cpu_time_us: 'int', elapsed_cpu_time_us: 'int', min_cpu_count: 'int', max_cpu_limit: 'int',
      samples_cpu_in_use: 'int', samples_cpu_delay: 'int', used_mem_kb: 'int', max_mem_kb: 'int', min_mem_kb: 'int', shared_mem_kb: 'int',
    },
  },
  guest_inspect_vnics: {
    '*': [{
      vswitch_name: 'str', nic_vdev: 'str', nic_fr_rx: 'int', nic_fr_tx: 'int', nic_fr_rx_dsc: 'int', nic_fr_tx_dsc: 'int',
      nic_fr_rx_err: 'int', nic_fr_tx_err: 'int', nic_rx: 'int', nic_tx: 'int',
    }],
  },
  guests_get_nic_info: [nicRow],
  get_switch_info: [nicRow],
  guest_get_console_output: 'str',
  guest_get_power_state_real: 'str',
  guest_get_power_state: 'str',
  guest_get_info: { power_state: 'str', max_mem_kb: 'int', mem_kb: 'int', num_cpu: 'int', cpu_time_us: 'int', online_cpu_num: 'int', os_distro: 'str', kernel_info: 'str' },
  guest_get_os_info: { os_distro: 'str', kernel_info: 'str' },
  guest_get_online_cpu_num: 'int',
  guest_get_user_direct: { user_direct: ['str'] },
  guest_get_adapters_info: { adapters: [open({ adapter_address: 'str', adapter_status: 'str' })] },
  guest_create_nic: 'str',
  guest_create_network_interface: [open({ nic_vdev: 'str' })],
  guest_create_disks: [createdDisk],
  guest_get_disks_info: {
    minidisks: [{ vdev: 'str', rdev: 'str', access_type: 'str', device_type: 'str', device_size: 'int', device_units: 'str', volume_label: 'str' }],
  },
  get_fcp_templates: { fcp_templates: [open({ ...templateFields, pchids: ['str'] })] },
  get_fcp_templates_details: { fcp_templates: [templateDetail] },
  create_fcp_template: { fcp_template: open(templateFields) },
  edit_fcp_template: { fcp_template: open(templateFields) },
  get_fcp_usage: ['any'],
  get_volume_connector: open({ zvm_fcp: ['str'], wwpns: ['str'], phy_to_virt_initiators: { '*': 'str' }, host: 'str', fcp_paths: 'int', fcp_template_id: 'str|null' }),
  volume_refresh_bootmap: { '*': ['str'] },
  host_get_info: {
    zcc_userid: 'str', zvm_host: 'str', hypervisor_hostname: 'str', hypervisor_type: 'str', hypervisor_version: 'int', vcpus: 'int', vcpus_used: 'int',
    cpu_info: { architecture: 'str', cec_model: 'str' }, memory_mb: 'num', memory_mb_used: 'num', ipl_time: 'str', disk_total: 'int', disk_used: 'int', disk_available: 'int',
  },
  host_get_guest_list: ['str'],
  host_get_diskpool_volumes: { '*': { diskpool_volumes: 'str' } },
  host_get_volume_info: open({}),
  host_get_ssi_info: ['str'],
  image_query: [{
    imagename: 'str', imageosdistro: 'str', md5sum: 'str', disk_size_units: 'str', image_size_in_bytes: 'str', type: 'str', comments: 'str|null',
    last_access_time: 'num', image_path: 'str',
  }],
  image_export: { image_name: 'str', image_path: 'str', os_version: 'str', md5sum: 'str', comments: 'str|null' },
  image_get_root_disk_size: 'str',
  file_import: { filesize_in_bytes: 'int', dest_url: 'str', md5sum: 'str' },
  vswitch_get_list: ['str'],
  vswitch_query: open({
    switch_name: 'str', switch_type: 'str', port_type: 'str', queue_memory_limit: 'str', routing_value: 'str', vlan_awareness: 'str', vlan_id: 'str',
    native_vlan_id: 'str', mac_address: 'str', switch_status: 'str', transport_type: 'str', real_devices: { '*': 'any' },
    // smtclient.query_vswitch: vlan_count is smcli's text on an aware switch, the number 0 on an UNAWARE one
    authorized_users: { '*': { port_num: 'str', prom_mode: 'str', osd_sim: 'str', vlan_count: 'str|int', vlan_ids: ['str'] } },
    adapters: { '*': 'any' },
  }),
};

/** Shape of the disk pool answer: totals without details, per-pool volume lists with details. */
export function diskpoolShape(details: boolean): Shape {
  if (!details) return { disk_total: 'int', disk_used: 'int', disk_available: 'int' };
  return { '*': [{ volume_name: 'str', device_type: 'str', start_cylinder: 'str', free_size: 'int', dasd_group: 'str', region_name: 'str' }] };
}
