/**
 * Dry run at the one seam every change passes: the SMAPI caller (and the management guest's ops).
 * Reads go to the live host; every other call is recorded and answered as a success without being
 * sent, so the adapter runs its real code and the plan is the call list the host would receive.
 */
import type { CallOptions, Hypervisor } from '../port.js';
import type { DeployRequest, MgmtCallOptions, MgmtOps } from '../image-port.js';
import type { SmapiCaller, SmapiParams, SmapiResponse } from '../smapi/types.js';
import { predictDirectory, stringsOf } from './dry-run-directory.js';

/** One call the controller would make: a SMAPI function, or an operation on the management guest. */
export type PlannedCall =
  | { kind: 'smapi'; function: string; target: string; params: SmapiParams }
  | { kind: 'mgmt'; op: string; target: string; params: Record<string, unknown> };

export interface DryRun {
  /** a Hypervisor whose writes are recorded, not sent; do not close it (it shares the live connection) */
  hv: Hypervisor;
  calls: PlannedCall[];
}

/** SMAPI functions that only read: the dry run sends these to the host. */
export function isReadOnlySmapi(fn: string): boolean {
  return /(^|_)Query(_|$)/.test(fn);
}

/**
 * Reads go to the host, except a directory read of an entry this dry run already wrote: that one answers
 * the entry as the recorded writes left it (dry-run-directory.ts).
 */
export function recordingCaller(live: SmapiCaller, calls: PlannedCall[]): SmapiCaller {
  const seen = new Map<string, string[]>();
  const written = new Map<string, string[] | undefined>();
  return {
    async call(fn, target, params = {}, opts) {
      if (fn === 'Image_Query_DM' && written.has(target)) {
        const lines = written.get(target);
        return lines ? { rc: 0, rs: 0, output: { image_record_array: lines } } : { rc: 400, rs: 4, output: {} };
      }
      if (isReadOnlySmapi(fn)) {
        const res = await live.call(fn, target, params, opts);
        if (fn === 'Image_Query_DM' && res.rc === 0) seen.set(target, stringsOf(res.output.image_record_array).map((l) => l.trimEnd()));
        return res;
      }
      calls.push({ kind: 'smapi', function: fn, target, params });
      const before = written.has(target) ? written.get(target) : seen.get(target);
      const after = predictDirectory(fn, params, before);
      if (after || fn === 'Image_Delete_DM') written.set(target, after);
      return { rc: 0, rs: 0, output: {} } satisfies SmapiResponse;
    },
    close: async () => undefined, // the live caller belongs to the real adapter
  };
}

const notPlanned = (op: string) => async (): Promise<never> => {
  throw new Error(`${op} is not part of a guest plan and is not run in a dry run`);
};

/** The management guest's writes recorded; its reads (image lists) go to it. */
export function recordingMgmt(live: MgmtOps, calls: PlannedCall[]): MgmtOps {
  const record = (op: string, target: string, params: Record<string, unknown>) => void calls.push({ kind: 'mgmt', op, target, params });
  return {
    listImages: (opts) => live.listImages(opts),
    describeImage: (name, opts) => live.describeImage(name, opts),
    importImage: notPlanned('importImage'),
    exportImage: notPlanned('exportImage'),
    deleteImage: notPlanned('deleteImage'),
    captureImage: notPlanned('captureImage'),
    async vmcp(command: string, _opts?: CallOptions) {
      record('vmcp', '', { command });
      return { exitCode: 0, output: '' };
    },
    async deployImage(req: DeployRequest, _opts?: MgmtCallOptions) {
      record('deployImage', req.userid.toUpperCase(), { ...req });
    },
    ...(live.growRootVolume ? { growRootVolume: async (userid: string, osVersion: string) => record('growRootVolume', userid.toUpperCase(), { osVersion }) } : {}),
    ...(live.forgetGuest ? { forgetGuest: async (userid: string) => record('forgetGuest', userid.toUpperCase(), {}) } : {}),
    close: async () => undefined,
  };
}
