/**
 * The FCP ledger in ZFcpTemplate status, derived by the template controller from the usage REST declares
 * in the template's spec and the connections volumes hold; REST and the volume controller read it.
 */
export {
  allocatedAmong, computeLedgerRows, computeRelease, computeReserve, computeSetUsage, emptyUsage, isAllocated, type Allocation,
} from './ledger.js';
export { computeLedger, connectionsBefore, connectionsOn, declaredFrom, declaredUsageOf, type VolumeConnection } from './derive.js';
export { findTemplateOf, readLedger } from './store.js';
export { allocatedFrom, computeRaw, computeStatistics, formatFcpRanges, isKnownFcp } from './statistics.js';
