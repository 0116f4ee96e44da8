/** Output shapes of the FCP template routes (docs/rest-interface.md §1.3 #13–15). */
import type { FcpUsage, ZFcpTemplate } from '../../api/index.js';
import { fcpLedger } from '../../controllers/index.js';

/** Where the templates live: the CPC/LPAR fields of every template output. */
export interface HostFields {
  cpc_sn: string;
  cpc_name: string;
  lpar: string;
  hypervisor_hostname: string;
}

const rowsOf = (t: ZFcpTemplate): FcpUsage[] => t.status?.fcps ?? [];

/** min_fcp_paths_count: as set, else every path (the reference's -1). */
export function effectiveMinPaths(t: ZFcpTemplate): number {
  return t.spec.minFcpPathsCount ?? t.status?.pathCount ?? new Set(rowsOf(t).map((r) => r.path)).size;
}

function common(t: ZFcpTemplate) {
  return {
    id: t.metadata.name,
    name: t.spec.name,
    description: t.spec.description ?? '',
    host_default: t.spec.hostDefault ?? false,
    storage_providers: t.spec.storageProviders ?? [],
    min_fcp_paths_count: effectiveMinPaths(t),
  };
}

/** POST / PUT output: `{"fcp_template": {...}}`. */
export function computeTemplateOutput(t: ZFcpTemplate, host: HostFields) {
  const { id, name, description, host_default, storage_providers, min_fcp_paths_count } = common(t);
  return {
    fcp_template: {
      name, id, description, host_default, storage_providers, min_fcp_paths_count,
      pchids: { add: { all: [], first_used_by_templates: [] } },
      cpc_sn: host.cpc_sn, cpc_name: host.cpc_name, hypervisor_hostname: host.hypervisor_hostname, lpar: host.lpar,
    },
  };
}

/** The template's PCHIDs, upper case and sorted (feilong: DISTINCT fcp.pchid of the devices in its FCP table). */
function pchidsOf(rows: FcpUsage[]): string[] {
  return [...new Set(rows.filter(fcpLedger.isKnownFcp).map((r) => (r.pchid ?? '').toUpperCase()).filter((p) => p !== ''))].sort();
}

/** One entry of GET /volumes/fcptemplates. */
export function computeTemplateListEntry(t: ZFcpTemplate, host: HostFields) {
  return { ...common(t), cpc_name: host.cpc_name, cpc_sn: host.cpc_sn, lpar: host.lpar, hypervisor_hostname: host.hypervisor_hostname, pchids: pchidsOf(rowsOf(t)) };
}

/** {PCHID: physical WWPN} of the template's PCHIDs (feilong's pchid_to_phy_wwpn of the details). */
function pchidToPhyWwpn(rows: FcpUsage[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => fcpLedger.isKnownFcp(r) && r.pchid).map((r) => [r.pchid!.toUpperCase(), r.wwpnPhy]));
}

/** One entry of GET /volumes/fcptemplates/detail; raw and statistics only when asked. */
export function computeTemplateDetail(t: ZFcpTemplate, host: HostFields, opts: { raw: boolean; statistics: boolean }, rows = rowsOf(t)) {
  return {
    ...computeTemplateListEntry(t, host),
    pchid_to_phy_wwpn: pchidToPhyWwpn(rows),
    ...(opts.raw ? { raw: fcpLedger.computeRaw(rows, t.metadata.name) } : {}),
    ...(opts.statistics ? { statistics: fcpLedger.computeStatistics(rows) } : {}),
  };
}

/** GET /volumes/fcp/{id}: [assigner_userid, reserved, connections, fcp_template_id] (feilong's fcp row; tmpl_id '' when not allocated). */
export function computeFcpUsage(row: FcpUsage, templateId: string): [string, number, number, string] {
  return [row.assignerId, row.reserved, row.connections, fcpLedger.allocatedFrom(row, templateId)];
}

/** feilong drops an unused FCP that z/VM does not report from its FCP table: it is not found, as there. */
export const isKnownFcp = fcpLedger.isKnownFcp;
