/**
 * The hypervisor package (docs/architecture.md §2): the Hypervisor port, what a controller may ask of
 * one host, and its adapters (SMAPI over TCP or in process, the management guest over SSH).
 *
 * Entrance rule: code outside `src/hypervisor/` imports this file only, except the simulated z/VM host,
 * a server of its own that has its own entrance `hypervisor/sim/index.js`; unit tests and bench may
 * reach inner files.
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

// The SMAPI adapter and the wire it speaks.
export { createSmapiHypervisor, type SmapiHypervisorDeps } from './smapi-hypervisor.js';
export { createInProcessCaller, type InProcessCallerDeps } from './in-process-caller.js';
export { createSmapiClient, createSmapiServer } from './smapi/index.js';
export type { SmapiCaller, SmapiClientOptions, SmapiHandler } from './smapi/index.js';
export { registerSmapiMetrics } from './smapi/metrics.js';
export type { PlannedCall } from './dry-run.js';
export { predictDirectory } from './dry-run-directory.js';

// The user directory as text: parse and render (docs/smapi.md §5).
export { parseDirectory, renderDirectory } from './directory.js';
export { normalizeShare } from './directory-render.js';

// The management guest over SSH.
export { queryPchids } from './pchids.js';
export {
  checkInsideDirs, copyStream, createMgmtOps, HostKeyRejectedError, openConfinedForRead, openConfinedForWrite,
  type HostKeyPolicy, type HttpSourcePolicy, type OpenedFile,
} from './mgmt/index.js';
export { registerTransferMetrics } from './mgmt/metrics.js';
