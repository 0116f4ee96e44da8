/**
 * The FCP usage ledger of a template (feilong's FCP DB rows, docs/rest-interface.md §4.4), kept in
 * ZFcpTemplate.status.fcps. Pure functions: each takes the rows and returns new rows.
 */
import type { FcpUsage } from '../../../api/index.js';
import type { FcpDevice } from '../../../hypervisor/index.js';

export function emptyUsage(fcp: string, path: number): FcpUsage {
  return { fcp, path, assignerId: '', reserved: 0, connections: 0, wwpnNpiv: '', wwpnPhy: '', chpid: '', state: 'notfound', owner: '' };
}

/**
 * The rows for the template's paths: usage kept for devices still listed, new devices added,
 * dropped devices removed; z/VM's view (WWPNs, CHPID, PCHID, state, owner) refreshed when `devices` is given.
 */
export function computeLedgerRows(prev: readonly FcpUsage[], paths: string[][], devices?: readonly FcpDevice[]): FcpUsage[] {
  const old = new Map(prev.map((r) => [r.fcp, r]));
  const byFcp = devices ? new Map(devices.map((d) => [d.fcp, d])) : undefined;
  return paths.flatMap((fcps, path) =>
    fcps.map((fcp) => {
      const row: FcpUsage = { ...(old.get(fcp) ?? emptyUsage(fcp, path)), path };
      if (!byFcp) return row;
      const d = byFcp.get(fcp);
      if (!d) return { ...row, state: 'notfound', owner: '' };
      // a PCHID not readable this time keeps the one last read
      const pchid = d.pchid ?? row.pchid;
      return { ...row, wwpnNpiv: d.wwpnNpiv, wwpnPhy: d.wwpnPhy, chpid: d.chpid, ...(pchid ? { pchid } : {}), state: d.state, owner: d.owner ?? '' };
    }),
  );
}

function withoutTemplateId(r: FcpUsage): FcpUsage {
  const { templateId: _dropped, ...rest } = r;
  return rest;
}

/** In use, as feilong counts it (reserved <> 0 OR connections <> 0): an assigner alone (feilong keeps the last one after a release) is not. */
export const isAllocated = (r: FcpUsage) => r.reserved !== 0 || r.connections > 0;

/** Dropping these devices from a template would lose their allocation. */
export function allocatedAmong(rows: readonly FcpUsage[], fcps: ReadonlySet<string>): FcpUsage[] {
  return rows.filter((r) => fcps.has(r.fcp) && isAllocated(r));
}

export interface Allocation {
  rows: FcpUsage[];
  /** one FCP per path that has one, in path order */
  fcps: FcpUsage[];
  changed: boolean;
  /** why nothing could be allocated */
  reason?: string;
}

const freeForUse = (r: FcpUsage) => !isAllocated(r) && r.state === 'free';

/**
 * get_volume_connector with reserve: an assigner that already holds FCPs of the template keeps
 * them; otherwise the lowest free FCP of each path is reserved, if at least `minPaths` paths have one.
 */
export function computeReserve(rows: readonly FcpUsage[], assigner: string, minPaths: number): Allocation {
  const mine = rows.filter((r) => r.assignerId === assigner && (r.reserved !== 0 || r.connections > 0));
  if (mine.length > 0) {
    const next = rows.map((r) => (mine.includes(r) && r.reserved === 0 ? { ...r, reserved: 1 } : r));
    return { rows: next, fcps: next.filter((r) => r.assignerId === assigner && r.reserved === 1), changed: mine.some((r) => r.reserved === 0) };
  }
  const paths = [...new Set(rows.map((r) => r.path))].sort((a, b) => a - b);
  const picked = paths.map((p) => rows.filter((r) => r.path === p && freeForUse(r)).sort((a, b) => a.fcp.localeCompare(b.fcp))[0]).filter((r): r is FcpUsage => r !== undefined);
  if (picked.length === 0 || picked.length < minPaths) {
    return { rows: [...rows], fcps: [], changed: false, reason: `no enough free FCP devices: ${picked.length} path(s) have one, ${minPaths} needed` };
  }
  const chosen = new Set(picked.map((r) => r.fcp));
  // allocated from this template now: a templateId recorded by an earlier allocation no longer holds
  const next = rows.map((r) => (chosen.has(r.fcp) ? { ...withoutTemplateId(r), reserved: 1, assignerId: assigner } : r));
  return { rows: next, fcps: next.filter((r) => chosen.has(r.fcp)), changed: true };
}

/** get_volume_connector without reserve: the assigner's FCPs without connections are released. */
export function computeRelease(rows: readonly FcpUsage[], assigner: string): Allocation {
  const mine = rows.filter((r) => r.assignerId === assigner);
  const releasable = new Set(mine.filter((r) => r.connections === 0).map((r) => r.fcp));
  const next = rows.map((r) => (releasable.has(r.fcp) ? { ...withoutTemplateId(r), reserved: 0, assignerId: '' } : r));
  return { rows: next, fcps: mine, changed: releasable.size > 0 };
}

/** set_fcp_usage: the row's usage as given. */
export function computeSetUsage(rows: readonly FcpUsage[], fcp: string, usage: { userid: string; reserved: number; connections: number }): FcpUsage[] {
  return rows.map((r) => (r.fcp === fcp ? { ...r, assignerId: usage.userid, reserved: usage.reserved, connections: usage.connections } : r));
}
