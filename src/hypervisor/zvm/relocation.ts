import type { CallOptions } from '../port.js';
import type { RelocationOps, RelocationRequest } from '../relocation-port.js';
import type { VmrelocateParams } from '../smapi/functions.js';
import type { SmapiCall } from './call.js';

/** VMRELOCATE keywords as feilong sends them (docs/smapi.md §1.9); empty values are not sent. */
export function relocationParams(req: RelocationRequest): Required<VmrelocateParams> {
  return {
    action: req.test ? 'TEST' : 'MOVE',
    destination: req.destination.toUpperCase(),
    force: (req.force ?? []).join(' '),
    immediate: req.immediate ? 'YES' : '',
    max_total: req.maxTotal !== undefined ? String(req.maxTotal) : '',
    max_quiesce: req.maxQuiesce !== undefined ? String(req.maxQuiesce) : '',
  };
}

/** Live relocation over SMAPI. */
export function createSmapiRelocationOps(smapi: SmapiCall): RelocationOps {
  return {
    async relocate(userid: string, req: RelocationRequest, opts?: CallOptions): Promise<void> {
      const { action, ...rest } = relocationParams(req);
      const params: VmrelocateParams = { action, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== '')) };
      await smapi('VMRELOCATE', userid.toUpperCase(), params, [], opts);
    },
  };
}
