/**
 * The SMAPI function layer, independent of transport. Parameter and output field names are
 * exactly pysmapi's names as they appear in test/fixtures/smapi-vectors (`kwargs` without `target`,
 * `parsed` without function_name/request_id/return_code/reason_code/target and the echoed inputs),
 * so the captured vectors test the codec directly. Byte fields are decoded to latin1 strings.
 */
export type SmapiParams = Record<string, unknown>;
export type SmapiOutput = Record<string, unknown>;

export interface SmapiRequest {
  fn: string;
  target: string;
  params: SmapiParams;
}

export interface SmapiResponse {
  rc: number;
  rs: number;
  output: SmapiOutput;
}

export interface SmapiCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Something that executes SMAPI functions: the TCP client, or the simulator in-process. */
export interface SmapiCaller {
  call(fn: string, target: string, params?: SmapiParams, opts?: SmapiCallOptions): Promise<SmapiResponse>;
  close(): Promise<void>;
}

export interface SmapiAuth {
  userid: string;
  password: string;
}

/** Server side: the simulated host answers decoded requests (auth already checked). */
export interface SmapiHandler {
  handle(req: SmapiRequest): Promise<SmapiResponse>;
}
