/** The detail outputs of a template (docs/rest-interface.md §1.3 #15): raw rows and per-path statistics (feilong volumeop.py). */
import type { FcpUsage } from '../../../api/index.js';
import { isAllocated } from './ledger.js';

/** 1A00 1A01 1A02 1A05 → "1A00 - 1A02, 1A05" */
export function formatFcpRanges(fcps: readonly string[]): string {
  const sorted = [...new Set(fcps.map((f) => f.toUpperCase()))].sort();
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    const contiguous = i < sorted.length && parseInt(sorted[i], 16) === parseInt(sorted[i - 1], 16) + 1;
    if (contiguous) continue;
    parts.push(i - 1 === start ? sorted[start] : `${sorted[start]} - ${sorted[i - 1]}`);
    start = i;
  }
  return parts.join(', ');
}

/** feilong's cases A–H (volumeop.py, _update_template_fcp_statistics_usage): an assigner alone does not allocate. */
const CLASSES: Record<string, (r: FcpUsage) => boolean> = {
  available: (r) => r.reserved === 0 && r.connections === 0 && r.state === 'free',
  allocated: (r) => r.reserved !== 0 && r.connections > 0,
  reserve_only: (r) => r.reserved !== 0 && r.connections === 0,
  connection_only: (r) => r.reserved === 0 && r.connections > 0,
  allocated_but_free: (r) => r.connections > 0 && r.state === 'free',
  notfound: (r) => r.state === 'notfound',
  offline: (r) => r.state === 'offline',
};

/** Case E: unused in the ledger but active in z/VM, as {FCP: owner} (a dict, not a range text). */
const unallocatedButActive = (rows: FcpUsage[]) =>
  Object.fromEntries(rows.filter((r) => r.reserved === 0 && r.connections === 0 && r.state === 'active').map((r) => [r.fcp.toUpperCase(), r.owner.toLowerCase()]));

/**
 * In feilong's FCP table: z/VM reports the device, or it is in use (an unused device z/VM no longer
 * reports is dropped from the table; its template row then joins nothing).
 */
export const isKnownFcp = (r: FcpUsage) => r.state !== 'notfound' || isAllocated(r);

/** PCHID (upper case) → count of the `counted` rows on it, for every PCHID of `rows` (0 when none), in order of first appearance. */
function countByPchid(rows: FcpUsage[], counted: (r: FcpUsage) => boolean = () => true): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) if (r.pchid) out[r.pchid.toUpperCase()] = (out[r.pchid.toUpperCase()] ?? 0) + (counted(r) ? 1 : 0);
  return out;
}

/**
 * One path's statistics as feilong's current code builds them (volumeop.py): counts per PCHID
 * (total_count also counts the not-found devices under `notfound`), `chpids` {CHPID: FCP ranges} and
 * `pchids` {PCHID: CHPID}, upper-case keys, for the devices in its FCP table only.
 */
function pathStatistics(rows: FcpUsage[]) {
  const all = rows.map((r) => r.fcp);
  const known = rows.filter(isKnownFcp);
  const ranges = formatFcpRanges(all).split(', ').filter((s) => s !== '');
  const total: Record<string, number> = countByPchid(known);
  const notfound = rows.filter((r) => !isKnownFcp(r) || CLASSES.notfound(r)).length;
  if (notfound > 0) total.notfound = notfound;
  const out: Record<string, unknown> = {
    total: formatFcpRanges(all),
    total_count: total,
    single_fcp: ranges.filter((s) => !s.includes(' - ')).join(', '),
    range_fcp: ranges.filter((s) => s.includes(' - ')).join(', '),
  };
  for (const [name, test] of Object.entries(CLASSES)) {
    const fcps = (name === 'notfound' ? rows.filter((r) => !isKnownFcp(r) || test(r)) : known.filter(test)).map((r) => r.fcp);
    out[name] = formatFcpRanges(fcps);
    if (name === 'available') out.available_count = countByPchid(known, test);
    if (name === 'connection_only') out.unallocated_but_active = unallocatedButActive(known);
  }
  const chpidOf = (r: FcpUsage) => r.chpid.toUpperCase();
  const chpids: Record<string, string> = {};
  for (const chpid of [...new Set(known.map(chpidOf).filter((c) => c !== ''))].sort()) {
    chpids[chpid] = formatFcpRanges(known.filter((r) => chpidOf(r) === chpid).map((r) => r.fcp));
  }
  const pchids: Record<string, string> = {};
  for (const r of known) if (r.pchid) pchids[r.pchid.toUpperCase()] = chpidOf(r);
  return { ...out, chpids, pchids };
}

const byPath = (rows: readonly FcpUsage[]) => {
  const out = new Map<number, FcpUsage[]>();
  for (const r of rows) out.set(r.path, [...(out.get(r.path) ?? []), r]);
  return [...out.entries()].sort(([a], [b]) => a - b);
};

export function computeStatistics(rows: readonly FcpUsage[]): Record<string, unknown> {
  return Object.fromEntries(byPath(rows).map(([p, list]) => [String(p), pathStatistics(list)]));
}

/** The template an FCP was allocated from (feilong's fcp.tmpl_id): '' when not in use, else the recorded one or this. */
export function allocatedFrom(r: FcpUsage, templateId: string): string {
  return r.reserved !== 0 || r.connections > 0 ? r.templateId || templateId : '';
}

/** [fcp_id, tmpl_id, assigner_id, connections, reserved, wwpn_npiv, wwpn_phy, chpid, pchid, state, owner, fcp.tmpl_id] per row. */
export function computeRaw(rows: readonly FcpUsage[], templateId: string): Record<string, unknown[][]> {
  return Object.fromEntries(byPath(rows).map(([p, list]) => [
    String(p),
    list.map((r) => [r.fcp, templateId, r.assignerId, r.connections, r.reserved, r.wwpnNpiv, r.wwpnPhy, r.chpid.toLowerCase(), r.pchid ?? '', r.state, r.owner === '' ? 'none' : r.owner.toLowerCase(), allocatedFrom(r, templateId)]),
  ]));
}
