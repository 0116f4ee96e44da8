/** The FCP ledger as other modules (the REST sidecar) use it: pure rules, store access, outputs. */
export {
  allocatedAmong, computeLedgerRows, computeRelease, computeReserve, computeSetUsage, emptyUsage, isAllocated, type Allocation,
} from './ledger.js';
export { findTemplateOf, updateLedger } from './ledger-store.js';
export { allocatedFrom, computeRaw, computeStatistics, formatFcpRanges, isKnownFcp } from './statistics.js';
