/**
 * The supported SMAPI functions: for each one its parameters and its decoded output.
 *
 * Field names are exactly those of test/fixtures/smapi-vectors (pysmapi's names): params are the
 * vector's `kwargs` without `target`; outputs are `parsed` without function_name, request_id,
 * return_code, reason_code, target and the echoed inputs. Byte fields are latin1 strings. Output
 * fields are optional because a reply may stop after rc/rs (every failure, and some successes such
 * as Image_Activate of one guest, are header-only). Shapes are `type` aliases (not interfaces) so
 * that they are assignable to the transport-level `SmapiParams`/`SmapiOutput` records.
 */
import type {
  AdapterConnectVswitchParams, AdapterCreateExtendedDmParams, AdapterCreateExtendedParams,
  AdapterQueryExtendedOutput, AdapterQueryExtendedParams, AdapterVdevParams,
  VswitchCreateExtendedParams, VswitchDeleteExtendedParams, VswitchQueryExtendedOutput,
  VswitchQueryExtendedParams, VswitchQueryOutput, VswitchQueryParams, VswitchSetExtendedParams,
} from './functions-network.js';
import type { SsiQueryOutput, SystemPerformanceInformationOutput, SystemPerformanceInformationParams, SystemProcessorQueryOutput } from './functions-host.js';
import type { VmrelocateOutput, VmrelocateParams } from './functions-relocate.js';
import type { DeviceDedicateParams, DeviceUndedicateParams, WwpnQueryOutput, WwpnQueryParams } from './functions-device.js';
import type { SmapiCallOptions, SmapiCaller } from './types.js';

export type * from './functions-network.js';
export type * from './functions-host.js';
export type * from './functions-device.js';
export type * from './functions-relocate.js';

type Empty = Record<string, never>;

/** operation_id of a DM call that completed synchronously (the wire's int4 -1, read unsigned). */
export const SYNC_OPERATION_ID = 0xffffffff;

/** Image_Create_DM: `str prototype_name`, `str initial_password`, `str initial_account_number`, `recarray`. */
export type ImageCreateDmParams = {
  prototype_name?: string;
  initial_password?: string;
  initial_account_number?: string;
  image_record_array: string[];
};

/** Create/Delete DM calls end with `int4 operation_id` (SYNC_OPERATION_ID, or 0 for disk create). */
export type OperationIdOutput = { operation_id?: number };

/** `int1 data_security_erase`: 0 installation default, 1 do not erase, 2 erase. */
export type ImageDeleteDmParams = { data_security_erase: number };

export type ImageRecordsOutput = { image_record_array?: string[] };

export type ImageNameArrayOutput = { image_name_array?: { image_name: string }[] };

export type FailingImage = { image_name: string; return_code: number; reason_code: number };

export type ImageActivateOutput = { activated?: number; not_activated?: number; failing_array?: FailingImage[] };

/** `str force_time`: "" (system default), IMMED, WITHIN n, BY hh:mm[:ss]. */
export type ImageDeactivateParams = { force_time?: string };

export type ImageDeactivateOutput = { deactivated?: number; not_deactivated?: number; failing_array?: FailingImage[] };

/**
 * Image_Pause: one raw `key=value` after the target. We send `action=<pause|unpause>\0` (pysmapi's
 * form, the one captured); the decoder also accepts zthin's unterminated `PAUSE=YES|NO`.
 */
export type ImagePauseParams = { action: string };

/** Image_Performance_Query: guest names as consecutive NUL-terminated strings, no count. */
export type ImagePerformanceQueryParams = { image_names: string[] };

/** One 112-byte DIAGNOSE X'2FC' record; times in microseconds, memory in KiB. */
export type ImagePerformanceRecord = {
  version: number;
  flags: number;
  used_cpu_time: number;
  elapsed_time: number;
  min_memory: number;
  max_memory: number;
  shared_memory: number;
  used_memory: number;
  active_cpus_in_cec: number;
  logical_cpus_in_vm: number;
  guest_cpus: number;
  min_cpu_count: number;
  max_cpu_limit: number;
  processor_share: number;
  samples_cpu_in_use: number;
  samples_cpu_delay: number;
  samples_page_wait: number;
  samples_idle: number;
  samples_other: number;
  samples_total: number;
  /** EBCDIC on the wire, 8 bytes blank padded; decoded to ASCII with the padding removed. */
  guest_name: string;
};

export type ImagePerformanceQueryOutput = { performance_records?: ImagePerformanceRecord[] };

export type ImageDiskCreateDmParams = {
  image_disk_number: string;
  image_disk_device_type: string;
  image_disk_allocation_type: string;
  allocation_area_name_or_volser: string;
  /** 1 CYLINDERS, 2 BLK0512, 3 BLK1024, 4 BLK2048, 5 BLK4096 */
  allocation_unit_size: number;
  image_disk_size: number;
  image_disk_mode: string;
  /** 0 unspecified, 1 unformatted, 2..5 CMS 512..4096, 6 CMS default */
  image_disk_formatting: number;
  image_disk_label?: string;
  read_password?: string;
  write_password?: string;
  multi_password?: string;
};

export type ImageDiskCreateParams = { image_disk_number: string; image_disk_mode: string };

export type ImageDiskDeleteDmParams = { image_disk_number: string; data_security_erase: number };

/** Image_Disk_Query: plain `kvlist` `vdasd_id=ALL|<vdev>`. */
export type ImageDiskQueryParams = { vdasd_id: string };

/** One 29-byte record; the 4/4/4/6-byte text fields are raw bytes (latin1), volid without its NUL. */
export type VdasdRecord = {
  vdasd_vdev: string;
  vdasd_rdev: string;
  vdasd_access_type: number;
  vdasd_devtype: string;
  vdasd_size: number;
  vdasd_unit: number;
  vdasd_volid: string;
};

export type ImageDiskQueryOutput = { vdasd_array?: VdasdRecord[] };

export type ImageCpuDefineParams = { cpu_address: string; cpu_type: number };

export type ImageCpuDefineDmParams = {
  cpu_address: string;
  base_cpu: number;
  cpuid?: string;
  dedicate_cpu: number;
  crypto: number;
};

export type ImageCpuDeleteDmParams = { cpu_address: string };

export type DefinitionUpdateDmParams = { definition_update_directory_keyword_parameter_list: string[] };

export type DefinitionDeleteDmParams = { definition_delete_directory_keyword_parameter_list: string[] };

/**
 * `int4 len` + NUL-terminated strings: async ids when rc 592 rs 4, else diagnostics. Items are the
 * strings without their NULs (pysmapi's split leaves a trailing "", we do not).
 */
export type DefinitionDmOutput = { asynch_data?: string[]; error_data?: string[] };

/** `str device_address` (empty = the whole entry). */
export type ImageLockParams = { device_address?: string };

export type ImageReplaceDmParams = { image_record_array: string[] };

/** `int1 query_type` (1 definition, 2 free, 3 used), `int1 entry_type` (1 volume, 2 region, 3 group). */
export type VolumeSpaceQueryDmParams = { query_type: number; entry_type: number; entry_names: string };

export type RecordArrayOutput = { record_array?: string[] };

export type SystemInformationOutput = { system_information_data?: string[] };

export type OperationIdParams = { operation_id: number };

export type ResponseRecoveryParams = { failed_request_id: number };

/**
 * On rc 0 the bytes after rc/rs of the recovery call are the original reply without its length:
 * `int4 reqid, int4 rc, int4 rs, output` (latin1 here; the client decodes it as the original call).
 */
export type ResponseRecoveryOutput = { response_data: string };

/** No output on the wire; the in-process simulator adds the guest's whole console log (sim/index.ts). */
export type ImageConsoleGetOutput = { console_text?: string };

interface Fn<P, O> {
  params: P;
  output: O;
}

export interface SmapiFunctionMap {
  Image_Create_DM: Fn<ImageCreateDmParams, OperationIdOutput>;
  Image_Delete_DM: Fn<ImageDeleteDmParams, OperationIdOutput>;
  Image_Query_DM: Fn<Empty, ImageRecordsOutput>;
  Image_Name_Query_DM: Fn<Empty, ImageNameArrayOutput>;
  Image_Activate: Fn<Empty, ImageActivateOutput>;
  Image_Deactivate: Fn<ImageDeactivateParams, ImageDeactivateOutput>;
  Image_Pause: Fn<ImagePauseParams, Empty>;
  Image_Status_Query: Fn<Empty, ImageNameArrayOutput>;
  Image_Performance_Query: Fn<ImagePerformanceQueryParams, ImagePerformanceQueryOutput>;
  Image_Console_Get: Fn<Empty, ImageConsoleGetOutput>;
  Image_Disk_Create_DM: Fn<ImageDiskCreateDmParams, OperationIdOutput>;
  Image_Disk_Create: Fn<ImageDiskCreateParams, Empty>;
  Image_Disk_Delete_DM: Fn<ImageDiskDeleteDmParams, OperationIdOutput>;
  Image_Disk_Query: Fn<ImageDiskQueryParams, ImageDiskQueryOutput>;
  Image_CPU_Define: Fn<ImageCpuDefineParams, Empty>;
  Image_CPU_Define_DM: Fn<ImageCpuDefineDmParams, Empty>;
  Image_CPU_Delete_DM: Fn<ImageCpuDeleteDmParams, Empty>;
  Image_Definition_Update_DM: Fn<DefinitionUpdateDmParams, DefinitionDmOutput>;
  Image_Definition_Delete_DM: Fn<DefinitionDeleteDmParams, DefinitionDmOutput>;
  Image_Lock_DM: Fn<ImageLockParams, Empty>;
  Image_Unlock_DM: Fn<ImageLockParams, Empty>;
  Image_Replace_DM: Fn<ImageReplaceDmParams, Empty>;
  Image_Volume_Space_Query_DM: Fn<VolumeSpaceQueryDmParams, RecordArrayOutput>;
  Virtual_Network_Adapter_Create_Extended_DM: Fn<AdapterCreateExtendedDmParams, Empty>;
  Virtual_Network_Adapter_Create_Extended: Fn<AdapterCreateExtendedParams, Empty>;
  Virtual_Network_Adapter_Delete_DM: Fn<AdapterVdevParams, Empty>;
  Virtual_Network_Adapter_Delete: Fn<AdapterVdevParams, Empty>;
  Virtual_Network_Adapter_Connect_Vswitch_DM: Fn<AdapterConnectVswitchParams, Empty>;
  Virtual_Network_Adapter_Connect_Vswitch: Fn<AdapterConnectVswitchParams, Empty>;
  Virtual_Network_Adapter_Disconnect_DM: Fn<AdapterVdevParams, Empty>;
  Virtual_Network_Adapter_Disconnect: Fn<AdapterVdevParams, Empty>;
  Virtual_Network_Adapter_Query_Extended: Fn<AdapterQueryExtendedParams, AdapterQueryExtendedOutput>;
  Virtual_Network_Vswitch_Create_Extended: Fn<VswitchCreateExtendedParams, Empty>;
  Virtual_Network_Vswitch_Set_Extended: Fn<VswitchSetExtendedParams, Empty>;
  Virtual_Network_Vswitch_Delete_Extended: Fn<VswitchDeleteExtendedParams, Empty>;
  Virtual_Network_Vswitch_Query_Extended: Fn<VswitchQueryExtendedParams, VswitchQueryExtendedOutput>;
  Virtual_Network_Vswitch_Query: Fn<VswitchQueryParams, VswitchQueryOutput>;
  System_Information_Query: Fn<Empty, SystemInformationOutput>;
  System_Performance_Information_Query: Fn<SystemPerformanceInformationParams, SystemPerformanceInformationOutput>;
  System_Processor_Query: Fn<Empty, SystemProcessorQueryOutput>;
  /** Not a member of an SSI cluster → 4/3008. */
  SSI_Query: Fn<Empty, SsiQueryOutput>;
  /** rc 0 with rs 100 done, 104 running, 108 failed (rs 0 also done). */
  Query_Asynchronous_Operation_DM: Fn<OperationIdParams, Empty>;
  Response_Recovery: Fn<ResponseRecoveryParams, ResponseRecoveryOutput>;
  /** No body; the level is returned in rs (e.g. 720 for z/VM 7.2). */
  Query_API_Functional_Level: Fn<Empty, Empty>;
  VMRELOCATE: Fn<VmrelocateParams, VmrelocateOutput>;
  Image_Device_Dedicate_DM: Fn<DeviceDedicateParams, Empty>;
  Image_Device_Dedicate: Fn<DeviceDedicateParams, Empty>;
  Image_Device_Undedicate_DM: Fn<DeviceUndedicateParams, Empty>;
  Image_Device_Undedicate: Fn<DeviceUndedicateParams, Empty>;
  System_WWPN_Query: Fn<WwpnQueryParams, WwpnQueryOutput>;
}

export type SmapiFunctionName = keyof SmapiFunctionMap;
export type SmapiParamsOf<F extends SmapiFunctionName> = SmapiFunctionMap[F]['params'];
export type SmapiOutputOf<F extends SmapiFunctionName> = SmapiFunctionMap[F]['output'];

/** A response whose output is typed for its function. */
export interface TypedSmapiResponse<F extends SmapiFunctionName> {
  rc: number;
  rs: number;
  output: SmapiOutputOf<F>;
}

/**
 * `caller.call` with params and output typed for `fn`. The one place a reply meets its function's type: the
 * codec (and the simulator) build each function's output by that function's layout.
 */
export function callTyped<F extends SmapiFunctionName>(caller: SmapiCaller, fn: F, target: string, params: SmapiParamsOf<F>, opts?: SmapiCallOptions): Promise<TypedSmapiResponse<F>> {
  return caller.call(fn, target, params, opts) as Promise<TypedSmapiResponse<F>>;
}
