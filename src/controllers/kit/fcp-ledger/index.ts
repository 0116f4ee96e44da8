/**
 * The FCP ledger in ZFcpTemplate status, shared by the template and volume controllers and the REST
 * sidecar: pure rules, store access, outputs.
 */
export {
  allocatedAmong, computeConnect, computeDisconnect, computeLedgerRows, computeRelease, computeReserve, computeSetUsage, emptyUsage, isAllocated, type Allocation,
} from './ledger.js';
export { findTemplateOf, updateLedger } from './store.js';
export { allocatedFrom, computeRaw, computeStatistics, formatFcpRanges, isKnownFcp } from './statistics.js';
