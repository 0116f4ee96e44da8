/** Parameter and output shapes of the host-wide query functions (docs/smapi.md §1.9 "Host / system"). */

/** System_Performance_Information_Query: `kvlist4` of request keywords, e.g. `DETAILED_CPU=SHOW=NO`. */
export type SystemPerformanceInformationParams = { system_performance_information_list?: string[] };

/** `int4 len` + `cstr` items such as `MEMORY_IN_USE=476504` (4 KiB pages) and `MEMORY_TOTAL=1048576`. */
export type SystemPerformanceInformationOutput = { system_performance_information_data?: string[] };

/** System_Processor_Query: `str partition_mode`, then an `int4`-length array of `str` "ADDR STATUS TYPE CORE_ID". */
export type SystemProcessorQueryOutput = { partition_mode?: string; processor_array?: string[] };

/**
 * SSI_Query: four `cstr` cluster attributes, then one `cstr` per member
 * "slot system_id state pdr_heartbeat received_heartbeat" to the end. Not in an SSI → 4/3008.
 */
export type SsiQueryOutput = {
  ssi_name?: string;
  ssi_mode?: string;
  cross_system_timeouts?: string;
  ssi_pdr?: string;
  ssi_member_array?: string[];
};
