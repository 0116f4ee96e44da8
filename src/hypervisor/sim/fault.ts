import { HypervisorError } from '../../errors.js';
import type { SmapiOutput } from '../smapi/types.js';

/**
 * A SMAPI failure raised inside the simulator; handle() turns it into {rc, rs, output}. Most
 * failures are header-only (docs/smapi.md §1.4 rule 1); `output` carries the few error
 * buffers that exist (e.g. Image_Definition_Update_DM's error_data).
 */
export class SimFault extends HypervisorError {
  readonly output: SmapiOutput;
  constructor(fn: string, rc: number, rs: number, message: string, output: SmapiOutput = {}) {
    super(fn, rc, rs, message);
    this.output = output;
  }
}

/** Syntax error codes of rc 24 (rs = parameter number × 100 + code, docs/smapi.md §6.1). */
export const Syntax = {
  notDecimal: 10,
  tooLong: 13,
  tooShort: 14,
  belowMin: 15,
  notHex: 16,
  aboveMax: 18,
  unrecognized: 19,
  missing: 24,
  charset: 26,
} as const;

/** rc 24 for parameter `index` (the target is parameter 1, function parameters follow). */
export function syntaxFault(fn: string, index: number, code: number, message: string): SimFault {
  return new SimFault(fn, 24, index * 100 + code, message);
}
