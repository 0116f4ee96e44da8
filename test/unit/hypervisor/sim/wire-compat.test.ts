/**
 * The simulator's answers must be exactly what the SMAPI codec encodes: every request of a guest
 * lifecycle goes through encodeParams/decodeParams, every answer through encodeOutput/decodeOutput,
 * and the decoded answer must equal what the simulator returned.
 */
import { decodeOutput, decodeParams, encodeOutput, encodeParams } from '../../../../src/hypervisor/smapi/index.js';
import type { SmapiParams, SmapiResponse } from '../../../../src/hypervisor/smapi/index.js';
import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import { entry, smallHost } from './helpers.js';

/** Fields the simulator adds on purpose that have no wire form (documented in sim/index.ts). */
const EXTENSIONS: Record<string, string[]> = { Image_Console_Get: ['console_text'] };

async function wireCall(host: SimHost, fn: string, target: string, params: SmapiParams = {}): Promise<SmapiResponse> {
  const decodedParams = decodeParams(fn, encodeParams(fn, params));
  const resp = await host.handle({ fn, target, params: decodedParams });
  const expected = { ...resp.output };
  for (const f of EXTENSIONS[fn] ?? []) delete expected[f];
  const bytes = encodeOutput(fn, resp.output, resp.rc, resp.rs);
  const back = bytes.length === 0 && Object.keys(expected).length === 0 ? {} : decodeOutput(fn, bytes, resp.rc, resp.rs);
  expect({ fn, output: back }).toEqual({ fn, output: expected });
  return resp;
}

const disk = (vdev: string) => ({
  image_disk_number: vdev,
  image_disk_device_type: '3390',
  image_disk_allocation_type: 'AUTOG',
  allocation_area_name_or_volser: 'POOL1',
  allocation_unit_size: 1,
  image_disk_size: 100,
  image_disk_mode: 'MR',
  image_disk_formatting: 1,
  image_disk_label: '',
  read_password: '',
  write_password: '',
  multi_password: '',
});

describe('simulator answers survive the SMAPI codec', () => {
  it('round-trips a whole guest lifecycle', async () => {
    const host = smallHost();
    const ok: [string, string, SmapiParams?][] = [
      ['Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'VSW1', real_device_address: '1000', vlan_id: '100', port_type: 'ACCESS', persist: 'YES' }],
      ['Virtual_Network_Vswitch_Set_Extended', 'MAINT', { switch_name: 'VSW1', grant_userid: 'W1', user_vlan_id: '10', persist: 'YES' }],
      ['Image_Create_DM', 'W1', { image_record_array: entry('W1', 'IPL 0100') }],
      ['Image_Disk_Create_DM', 'W1', disk('100')],
      ['Virtual_Network_Adapter_Create_Extended_DM', 'W1', { image_device_number: '1000', adapter_type: 'QDIO', mac_id: '00AB01' }],
      ['Image_Lock_DM', 'W1', { device_address: '' }],
      ['Image_Replace_DM', 'W1', { image_record_array: [...entry('W1', 'IPL 0100'), 'MDISK 0100 3390 1 100 VOL001 MR', 'NICDEF 1000 TYPE QDIO LAN SYSTEM VSW1 MACID 00AB01'] }],
      ['Image_Definition_Update_DM', 'W1', { definition_update_directory_keyword_parameter_list: ['COMMAND_DEFINE_CPU=CPUADDR=01 TYPE=IFL', 'SHARE=RELATIVE=200'] }],
      ['Image_Definition_Delete_DM', 'W1', { definition_delete_directory_keyword_parameter_list: ['COMMAND_DEFINE_CPU=CPUADDR=01'] }],
      ['Image_Query_DM', 'W1'],
      ['Image_Name_Query_DM', 'FOOBAR'],
      ['Image_Activate', 'W1'],
      ['Image_Status_Query', '*'],
      ['Image_Status_Query', 'W1'],
      ['Image_CPU_Define', 'W1', { cpu_address: '01', cpu_type: 2 }],
      ['Image_Disk_Create_DM', 'W1', disk('101')],
      ['Image_Disk_Create', 'W1', { image_disk_number: '101', image_disk_mode: 'MR' }],
      ['Image_Disk_Query', 'W1', { vdasd_id: 'ALL' }],
      ['Virtual_Network_Adapter_Query_Extended', 'W1', { image_device_number: '*' }],
      ['Virtual_Network_Vswitch_Query_Extended', 'MAINT', { switch_name: '*' }],
      ['Virtual_Network_Vswitch_Query', 'MAINT', { switch_name: '*' }],
      ['Image_Pause', 'W1', { action: 'pause' }],
      ['Image_Performance_Query', 'MAINT', { image_names: ['W1'] }],
      ['Image_Pause', 'W1', { action: 'unpause' }],
      ['Image_Console_Get', 'W1'],
      ['Image_Volume_Space_Query_DM', 'MAINT', { query_type: 2, entry_type: 3, entry_names: 'POOL1' }],
      ['Image_Volume_Space_Query_DM', 'MAINT', { query_type: 3, entry_type: 3, entry_names: 'POOL1' }],
      ['Image_Volume_Space_Query_DM', 'MAINT', { query_type: 1, entry_type: 3, entry_names: '*' }],
      ['System_Information_Query', 'DUMMY'],
      ['Query_API_Functional_Level', 'MAINT'],
      ['Query_Asynchronous_Operation_DM', 'MAINT', { operation_id: 7 }],
      ['Image_Deactivate', 'W1', { force_time: 'IMMED' }],
      ['Image_Disk_Delete_DM', 'W1', { image_disk_number: '101', data_security_erase: 0 }],
      ['Virtual_Network_Adapter_Delete_DM', 'W1', { image_device_number: '1000' }],
      ['Image_Delete_DM', 'W1', { data_security_erase: 0 }],
      ['Virtual_Network_Vswitch_Delete_Extended', 'MAINT', { switch_name: 'VSW1', persist: 'YES' }],
    ];
    for (const [fn, target, params] of ok) {
      const r = await wireCall(host, fn, target, params);
      expect({ fn, rc: r.rc }).toEqual({ fn, rc: 0 });
    }
  });

  it('round-trips failures, including the error buffer of Image_Definition_Update_DM', async () => {
    const host = smallHost();
    await wireCall(host, 'Image_Create_DM', 'W2', { image_record_array: entry('W2') });
    const r = await wireCall(host, 'Image_Definition_Update_DM', 'W2', { definition_update_directory_keyword_parameter_list: ['BOGUS_KEYWORD=BAD'] });
    expect([r.rc, r.rs]).toEqual([8, 3002]);
    const missing = await wireCall(host, 'Image_Disk_Delete_DM', 'W2', { image_disk_number: '0200', data_security_erase: 0 });
    expect([missing.rc, missing.rs]).toEqual([208, 36]);
  });
});
