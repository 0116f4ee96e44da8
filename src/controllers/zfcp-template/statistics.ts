/** The detail outputs of a template (docs/rest-interface.md §1.3 #15): raw rows and per-path statistics. */
import type { FcpUsage } from '../../api/index.js';

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

function pathStatistics(rows: FcpUsage[]) {
  const all = rows.map((r) => r.fcp);
  const ranges = formatFcpRanges(all).split(', ').filter((s) => s !== '');
  const out: Record<string, unknown> = {
    total: formatFcpRanges(all),
    total_count: all.length,
    single_fcp: ranges.filter((s) => !s.includes(' - ')).join(', '),
    range_fcp: ranges.filter((s) => s.includes(' - ')).join(', '),
  };
  for (const [name, test] of Object.entries(CLASSES)) {
    const fcps = rows.filter(test).map((r) => r.fcp);
    out[name] = formatFcpRanges(fcps);
    if (name === 'available') out.available_count = fcps.length;
    if (name === 'connection_only') out.unallocated_but_active = unallocatedButActive(rows);
  }
  // feilong stores z/VM's answers lower case: CHPID keys are '3b', not '3B'
  const chpidOf = (r: FcpUsage) => r.chpid.toLowerCase();
  const chpids: Record<string, string> = {};
  for (const chpid of [...new Set(rows.map(chpidOf).filter((c) => c !== ''))].sort()) {
    chpids[chpid] = formatFcpRanges(rows.filter((r) => chpidOf(r) === chpid).map((r) => r.fcp));
  }
  out.CHPIDs = chpids;
  return out;
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

/** [fcp_id, tmpl_id, assigner_id, connections, reserved, wwpn_npiv, wwpn_phy, chpid, state, owner, fcp.tmpl_id] per row. */
export function computeRaw(rows: readonly FcpUsage[], templateId: string): Record<string, unknown[][]> {
  return Object.fromEntries(byPath(rows).map(([p, list]) => [
    String(p),
    list.map((r) => [r.fcp, templateId, r.assignerId, r.connections, r.reserved, r.wwpnNpiv, r.wwpnPhy, r.chpid.toLowerCase(), r.state, r.owner === '' ? 'none' : r.owner.toLowerCase(), allocatedFrom(r, templateId)]),
  ]));
}
