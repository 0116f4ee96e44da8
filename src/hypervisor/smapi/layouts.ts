/**
 * The table of supported functions: parameter layout and output codec of each
 * (docs/smapi.md §1.2 and §1.9). Adding a function means one line here plus its types in
 * functions.ts.
 */
import type { SmapiFunctionName } from './functions.js';
import type { OutputCodec } from './output-codec.js';
import { noOutput } from './output-codec.js';
import {
  definitionDmOutput, imageActivateOutput, imageDeactivateOutput, imageDiskQueryOutput, imageNameArrayOutput,
  imagePerformanceOutput, imageRecordsOutput, operationIdOutput, recordArrayOutput, responseRecoveryOutput,
  systemInformationOutput,
} from './outputs-image.js';
import { adapterQueryExtendedOutput, vswitchQueryExtendedOutput, vswitchQueryOutput } from './outputs-network.js';
import { wwpnQueryOutput } from './outputs-device.js';
import type { ParamField } from './params.js';
import { ssiQueryOutput, systemPerformanceInformationOutput, systemProcessorQueryOutput } from './outputs-host.js';
import { vmrelocateOutput } from './outputs-relocate.js';

export interface FunctionLayout {
  params: readonly ParamField[];
  output: OutputCodec;
}

const str = (name: string, optional = false): ParamField => ({ k: 'str', name, optional });
const int1 = (name: string): ParamField => ({ k: 'int1', name });
const int4 = (name: string): ParamField => ({ k: 'int4', name });
const kv: ParamField = { k: 'kv', total: false };
const kv4: ParamField = { k: 'kv', total: true };
const vdev = [str('image_device_number')];

const fn = (params: readonly ParamField[], output: OutputCodec = noOutput): FunctionLayout => ({ params, output });

export const LAYOUTS: Record<SmapiFunctionName, FunctionLayout> = {
  Image_Create_DM: fn([str('prototype_name', true), str('initial_password', true), str('initial_account_number', true),
    { k: 'recarray', name: 'image_record_array' }], operationIdOutput),
  Image_Delete_DM: fn([int1('data_security_erase')], operationIdOutput),
  Image_Query_DM: fn([], imageRecordsOutput),
  Image_Name_Query_DM: fn([], imageNameArrayOutput),
  Image_Activate: fn([], imageActivateOutput),
  Image_Deactivate: fn([str('force_time', true)], imageDeactivateOutput),
  Image_Pause: fn([{ k: 'pause' }]),
  Image_Status_Query: fn([], imageNameArrayOutput),
  Image_Performance_Query: fn([{ k: 'cstrs', name: 'image_names' }], imagePerformanceOutput),
  Image_Console_Get: fn([]),
  Image_Disk_Create_DM: fn([str('image_disk_number'), str('image_disk_device_type'), str('image_disk_allocation_type'),
    str('allocation_area_name_or_volser'), int1('allocation_unit_size'), int4('image_disk_size'), str('image_disk_mode'),
    int1('image_disk_formatting'), str('image_disk_label', true), str('read_password', true),
    str('write_password', true), str('multi_password', true)], operationIdOutput),
  Image_Disk_Create: fn([str('image_disk_number'), str('image_disk_mode')]),
  Image_Disk_Delete_DM: fn([str('image_disk_number'), int1('data_security_erase')], operationIdOutput),
  Image_Disk_Query: fn([kv], imageDiskQueryOutput),
  Image_CPU_Define: fn([str('cpu_address'), int1('cpu_type')]),
  Image_CPU_Define_DM: fn([str('cpu_address'), int1('base_cpu'), str('cpuid', true), int1('dedicate_cpu'), int1('crypto')]),
  Image_CPU_Delete_DM: fn([str('cpu_address')]),
  Image_Definition_Update_DM: fn([{ k: 'list4', name: 'definition_update_directory_keyword_parameter_list' }], definitionDmOutput),
  Image_Definition_Delete_DM: fn([{ k: 'list4', name: 'definition_delete_directory_keyword_parameter_list' }], definitionDmOutput),
  Image_Lock_DM: fn([str('device_address', true)]),
  Image_Unlock_DM: fn([str('device_address', true)]),
  Image_Replace_DM: fn([{ k: 'recarray', name: 'image_record_array' }]),
  Image_Volume_Space_Query_DM: fn([int1('query_type'), int1('entry_type'), str('entry_names')], recordArrayOutput),
  Virtual_Network_Adapter_Create_Extended_DM: fn([kv4]),
  Virtual_Network_Adapter_Create_Extended: fn([kv]),
  Virtual_Network_Adapter_Delete_DM: fn(vdev),
  Virtual_Network_Adapter_Delete: fn(vdev),
  Virtual_Network_Adapter_Connect_Vswitch_DM: fn([...vdev, str('switch_name')]),
  Virtual_Network_Adapter_Connect_Vswitch: fn([...vdev, str('switch_name')]),
  Virtual_Network_Adapter_Disconnect_DM: fn(vdev),
  Virtual_Network_Adapter_Disconnect: fn(vdev),
  Virtual_Network_Adapter_Query_Extended: fn([kv4], adapterQueryExtendedOutput),
  Virtual_Network_Vswitch_Create_Extended: fn([kv]),
  Virtual_Network_Vswitch_Set_Extended: fn([kv]),
  Virtual_Network_Vswitch_Delete_Extended: fn([kv]),
  Virtual_Network_Vswitch_Query_Extended: fn([kv], vswitchQueryExtendedOutput),
  Virtual_Network_Vswitch_Query: fn([str('switch_name')], vswitchQueryOutput),
  System_Information_Query: fn([], systemInformationOutput),
  System_Performance_Information_Query: fn([{ k: 'list4', name: 'system_performance_information_list' }], systemPerformanceInformationOutput),
  System_Processor_Query: fn([], systemProcessorQueryOutput),
  SSI_Query: fn([], ssiQueryOutput),
  Query_Asynchronous_Operation_DM: fn([int4('operation_id')]),
  Response_Recovery: fn([int4('failed_request_id')], responseRecoveryOutput),
  Query_API_Functional_Level: fn([]),
  VMRELOCATE: fn([kv], vmrelocateOutput),
  Image_Device_Dedicate_DM: fn([...vdev, str('real_device_number'), int1('readonly')]),
  Image_Device_Dedicate: fn([...vdev, str('real_device_number'), int1('readonly')]),
  Image_Device_Undedicate_DM: fn(vdev),
  Image_Device_Undedicate: fn(vdev),
  System_WWPN_Query: fn([kv], wwpnQueryOutput),
};

export const SUPPORTED_FUNCTIONS = Object.keys(LAYOUTS) as SmapiFunctionName[];

export function isSupportedFunction(name: string): name is SmapiFunctionName {
  return Object.prototype.hasOwnProperty.call(LAYOUTS, name);
}
