/**
 * The hypervisor package (docs/architecture.md §2): the Hypervisor port, what a controller may ask of
 * one host, and its adapters. Folders: `zvm/` the port over SMAPI (the adapter), `smapi/` the SMAPI wire
 * (codec, TCP client and server, in-process caller), `mgmt/` the management guest over SSH,
 * `directory/` the user directory as text, `sim/` the simulated z/VM host.
 *
 * Entrance rule: code outside `src/hypervisor/` imports this file only, or `hypervisor/sim/index.js` for
 * the simulated host (a server of its own); only tests and bench may reach the files behind them.
 */

// The ports: what the rest of the tree programs against.
export type * from './port.js';
export type * from './fcp-port.js';
export type * from './host-port.js';
export type * from './relocation-port.js';
export type * from './vswitch-port.js';
export type * from './image-port.js';
export { GuestImageRs, ImageError, ImageRs } from './image-port.js';
export { toFeilongHostInfo } from './host-port.js';
export { createHostRegistry, requireHosts, type HostRegistry, type HypervisorRegistry } from './host-registry.js';

// The adapter over SMAPI, its dry run, and the callers it speaks through.
export { createSmapiHypervisor, type SmapiHypervisorDeps } from './zvm/hypervisor.js';
export type { DryRun, PlannedCall } from './zvm/dry-run.js';
export { predictDirectory } from './zvm/dry-run-directory.js';
export { createInProcessCaller, createSmapiClient, createSmapiServer, registerSmapiMetrics } from './smapi/index.js';
export type { InProcessCallerDeps, SmapiCaller, SmapiClientOptions, SmapiHandler } from './smapi/index.js';

// The user directory as text: parse and render (docs/smapi.md §5).
export { parseDirectory, renderDirectory } from './directory/directory.js';
export { normalizeShare } from '../api/zguest.js';
export { STATEMENT_FAMILIES, statementsOf, type StatementFamily } from './directory/families.js';
export { rewriteEntry } from './zvm/directory-edits.js';

// The management guest over SSH.
export {
  checkInsideDirs, copyStream, createMgmtOps, HostKeyRejectedError, openConfinedForRead, openConfinedForWrite, queryPchids,
  registerTransferMetrics, type HostKeyPolicy, type HttpSourcePolicy, type OpenedFile,
} from './mgmt/index.js';
