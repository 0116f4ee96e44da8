/**
 * For every API of the reference client: the world its captures need, and what the answer must be.
 * `ok`: 200 with the reference's output shape. `refused`: the objects the capture names cannot exist here
 * (a path on the client's own host, a remote host, an SSI member or volume the simulator does not have), so
 * the answer is an error envelope from the route, with the status given.
 */
import { NIC_ID, USERID, USERID_2, type ReplayWorld } from './world.js';

export interface Expectation {
  kind: 'ok' | 'refused';
  /** for `refused`: the status the route answers, and why the object is missing */
  status?: number;
  why?: string;
}

export interface ApiScenario {
  arrange?: (w: ReplayWorld, variant: string) => Promise<void>;
  /** restores what the call changed that later captures rely on */
  after?: (w: ReplayWorld, variant: string) => Promise<void>;
  expect?: Expectation | ((variant: string, auth: 'token' | 'none') => Expectation);
}

const OK: Expectation = { kind: 'ok' };
const UNREACHABLE: Expectation = { kind: 'refused', status: 500, why: 'the captured remote host nova@192.168.99.1 does not exist' };
const refused = (status: number, why: string): Expectation => ({ kind: 'refused', status, why });
const on = (w: ReplayWorld) => w.guest('on');
const off = (w: ReplayWorld) => w.guest('off');
const bothOn = async (w: ReplayWorld) => {
  await w.guest('on');
  await w.guest('on', USERID_2);
};

/** Keyed by API name. Entries run in this order; an API without an entry is a failure of the test. */
export const SCENARIOS: Record<string, ApiScenario> = {
  version: {},
  // the client's own token_create sends its auth token, not the admin token: the reference answers 401 too
  token_create: { expect: (_v, auth) => (auth === 'token' ? refused(401, 'POST /token without X-Admin-Token') : OK) },
  smapi_health: {},
  host_get_info: {},
  host_get_guest_list: {},
  host_get_diskpool_volumes: {},
  host_diskpool_get_info: {},
  host_get_volume_info: { expect: (v) => (v === 'volume' ? refused(404, 'the simulator has no volume VOL001') : OK) },
  host_get_ssi_info: {},
  vswitch_create: { arrange: (w) => w.vswitchAbsent(), after: async (w) => w.vswitchAbsent() },
  vswitch_get_list: { arrange: (w) => w.vswitch() },
  vswitch_query: { arrange: (w) => w.vswitch() },
  vswitch_delete: { arrange: (w) => w.vswitch() },
  guest_create: { arrange: (w) => w.guestAbsent(), after: (w) => w.guestAbsent() },
  guest_list: { arrange: (w) => w.guest() },
  vswitch_grant_user: { arrange: async (w) => { await w.vswitch(); await w.guest(); } },
  vswitch_set_vlan_id_for_user: { arrange: async (w) => { await w.vswitch(); await w.guest(); } },
  vswitch_revoke_user: { arrange: async (w) => { await w.vswitch(); await w.guest(); } },
  guest_get_definition_info: { arrange: (w) => w.guest() },
  guest_get_user_direct: { arrange: (w) => w.guest() },
  guest_get_power_state: { arrange: (w) => w.guest() },
  guest_get_power_state_real: { arrange: (w) => w.guest() },
  guest_get_info: { arrange: (w) => w.guest() },
  guest_get_os_info: { arrange: (w) => w.guest() },
  guest_get_online_cpu_num: { arrange: (w) => w.guest() },
  guest_get_disks_info: { arrange: (w) => w.guest() },
  guest_start: { arrange: off },
  guest_stop: { arrange: on },
  guest_softstop: { arrange: on },
  guest_pause: { arrange: on },
  guest_unpause: { arrange: (w) => w.guest('paused') },
  guest_reboot: { arrange: on },
  guest_reset: { arrange: on },
  guest_get_console_output: { arrange: on },
  guest_inspect_stats: { arrange: bothOn },
  guest_inspect_vnics: { arrange: bothOn },
  guest_live_resize_cpus: { arrange: on },
  guest_resize_cpus: { arrange: off },
  guest_live_resize_mem: { arrange: on },
  guest_resize_mem: { arrange: off },
  guest_grow_root_volume: { arrange: on },
  guest_create_disks: { arrange: (w) => w.guest('off') },
  guest_config_minidisks: { arrange: (w) => w.guest('off') },
  guest_delete_disks: {
    arrange: async (w) => {
      await w.guest('off');
      const disks = ((await w.call('GET', `/guests/${USERID}/disks`)).output as { minidisks: { vdev: string }[] }).minidisks.map((d) => d.vdev);
      const missing = ['0101', '0102'].filter((v) => !disks.includes(v));
      if (missing.length) await w.call('POST', `/guests/${USERID}/disks`, { disk_info: { disk_list: missing.map((vdev) => ({ size: '1g', vdev })) } });
    },
  },
  guest_create_nic: { arrange: async (w) => { await w.guest('on'); await w.nicAbsent('1000'); }, after: (w) => w.nicAbsent('1000') },
  guest_get_adapters_info: { arrange: async (w) => { await w.guest(); await w.nic(); } },
  guests_get_nic_info: { arrange: async (w) => { await w.guest(); await w.nic(true); } },
  get_switch_info: { arrange: async (w) => { await w.guest(); await w.nic(true); } },
  guest_nic_couple_to_vswitch: { arrange: async (w) => { await w.guest('on'); await w.vswitch(); await w.call('PUT', `/vswitches/VSW1`, { vswitch: { grant_userid: USERID } }); await w.nic(); } },
  guest_nic_uncouple_from_vswitch: { arrange: async (w) => { await w.guest('on'); await w.nic(true); } },
  guest_delete_nic: { arrange: async (w) => { await w.guest('on'); await w.nic(); } },
  guest_create_network_interface: { arrange: async (w) => { await w.guest('on'); await w.nicAbsent('1000'); } },
  guest_delete_network_interface: {
    arrange: async (w) => {
      await w.guest('on');
      await w.nicAbsent('1000');
      await w.call('POST', `/guests/${USERID}/interface`, { interface: { os_version: 'rhel8.6', guest_networks: [{ ip_addr: '192.168.95.10', cidr: '192.168.95.0/24', nic_vdev: '1000', nic_id: NIC_ID }] } });
    },
  },
  image_import: { arrange: (w) => w.imageAbsent(), expect: (v) => (v === 'typical' ? UNREACHABLE : refused(400, "the captured file:///data/images/rhel86.img is on the client's host, outside the allowed directories")) },
  image_query: { arrange: (w) => w.image() },
  image_get_root_disk_size: { arrange: (w) => w.image() },
  image_export: { arrange: (w) => w.image(), expect: (v) => (v === 'typical' ? UNREACHABLE : refused(400, 'the captured file:///data/export destination is outside the allowed directories')) },
  guest_deploy: {
    // a fresh guest each time, so that no variant is the no-op redeploy of the image already deployed
    arrange: async (w) => { await w.image(); await w.guestAbsent(); await w.guest('off'); },
    expect: (v) => (v === 'skipdiskcopy' ? refused(501, 'skipdiskcopy (transport files only) needs an in-guest agent') : v === 'typical' ? UNREACHABLE : OK),
    // a failed deploy leaves the guest as it was: the next call on it is judged on its own
    after: async (w) => { await w.call('POST', `/guests/${USERID}/action`, { action: 'start' }); },
  },
  guest_capture: { arrange: async (w) => { await w.guest('on'); await w.imageAbsent('linux01-capture'); } },
  image_delete: { arrange: (w) => w.image() },
  create_fcp_template: { arrange: (w) => w.templateAbsent('tmpl-capture'), after: (w) => w.templateAbsent('tmpl-capture') },
  get_fcp_templates: { arrange: (w) => w.templates() },
  get_fcp_templates_details: { arrange: (w) => w.templates() },
  edit_fcp_template: { arrange: (w) => w.templates() },
  get_fcp_usage: { arrange: (w) => w.templates() },
  set_fcp_usage: { arrange: async (w) => { await w.templates(); await w.guest(); } },
  get_volume_connector: { arrange: async (w) => { await w.templates(); await w.guest('on'); } },
  volume_attach: { arrange: async (w) => { await w.templates(); await w.guest('on'); await w.volume(false); } },
  volume_detach: { arrange: async (w) => { await w.templates(); await w.guest('on'); await w.volume(true); } },
  volume_refresh_bootmap: {
    arrange: (w) => w.templates(),
    expect: (v) => (v === 'default' ? refused(400, 'the default call sends no FCP channel, WWPN or LUN (null); the reference fails on them too') : OK),
  },
  delete_fcp_template: { arrange: async (w) => { await w.volume(false); await w.templates(); await w.releaseFcps(); } },
  file_import: {},
  file_export: { expect: refused(400, 'the captured source_file is a path of the reference host, outside the allowed directories') },
  guest_deregister: { arrange: (w) => w.guest(), after: (w) => w.call('POST', `/guests/${USERID}/action`, { action: 'register_vm', meta: 'rhel8', net_set: '1' }).then(() => undefined) },
  guest_register: { arrange: async (w) => { await w.guest(); await w.call('POST', `/guests/${USERID}/action`, { action: 'deregister_vm' }); } },
  guest_live_migrate: { arrange: on, expect: refused(500, 'SSIMEM2 is not a member of the simulated SSI cluster') },
  guest_delete: { arrange: (w) => w.guest() },
};
