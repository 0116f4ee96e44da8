/**
 * The simulated z/VM host (docs/architecture.md §2, `sim/`). `createSimHost(config)` returns a SmapiHandler
 * answering decoded SMAPI requests with real z/VM rc/rs rules (docs/smapi.md §5.4, §6), plus
 * commit/close/stats/callCounts and two helpers for the management-guest emulation.
 *
 * Simulator extensions and choices a client must know:
 * - Image_Console_Get: as the real call, closes the console spool file (type CON, class T) and
 *   transfers it to the reader of the management guest (config.mgmtUserid, default OPNCLOUD),
 *   where the SSH side's `vmur list` / `vmur re -t -O <spoolid>` read it. In-process callers also
 *   get the whole retained log in output field `console_text` (a string, not encoded on the wire).
 * - Paused guests: Image_Status_Query lists them as active (as on z/VM); Image_Performance_Query
 *   sets PAUSED_FLAG (0x00000001) in the record's `flags`; `queryUser()` answers 'paused'.
 * - Image_Deactivate without IMMED: rc 0, rs = seconds; the logoff stays pending for
 *   the next `logoffPendingCalls` handled calls (Activate/Deactivate answer 200/16 meanwhile);
 *   the call after them finds the guest logged off. IMMED during the window forces the logoff at once and answers 200/16.
 * - Image_Delete_DM of a logged-on guest: 596/6831 ("delete not finished"), nothing changes.
 * - Image_Status_Query of a guest that is not in the directory: rc 0 rs 12, like a logged-off one.
 * - Query_Asynchronous_Operation_DM: every DM call is synchronous, so any id answers rs 100.
 * - Image_Performance_Query: always rc 0; logged-off names yield no record.
 * - Unknown function → 900/12; a parameter syntax error → rc 24 with rs = param# × 100 + code,
 *   the target counting as parameter 1.
 */
export { createSimHost } from './host.js';
export type { MinidisksGoneListener, SimHost, SimPowerState, SimStats } from './host.js';
export { defaultSimConfig, resolveSimConfig } from './config.js';
export type { ResolvedSimConfig, SimConfig, SimPoolConfig, SimPoolType, SimVolumeConfig } from './config.js';
export type { SimStateJson } from './persistence.js';
export type { ReaderFile } from './state.js';
export { PAUSED_FLAG, functionalLevel } from './handlers/system.js';
export { startSimSshServer, type SimSshOptions, type SimSshServer } from './ssh/index.js';
