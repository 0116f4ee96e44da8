/**
 * feilong's FCP database → ZFcpTemplates whose status.fcps is the device ledger. feilong keeps one
 * row per device for the whole host; a template's ledger holds a row for each device of the template,
 * so a device in two templates carries the same usage in both (as both of feilong's template views
 * show it), and `templateId` keeps the template it was allocated from (fcp.tmpl_id).
 */
import { API_VERSION, fcpDevicesProblem, type FcpUsage, type ZFcpTemplate, type ZFcpTemplateStatus } from '../api/index.js';
import type { FeilongData, FeilongFcpRow } from './feilong-db.js';
import { isResourceName, migratedMetadata, type MigrationPlan, type Unmapped } from './model.js';

const hex = (n: number) => n.toString(16).padStart(4, '0');

/** ['1a00','1a01','1a02','1a05'] → '1a00-1a02,1a05' (one path of the fcpDevices text). */
export function compactPath(fcps: readonly string[]): string {
  const nums = [...new Set(fcps.map((f) => parseInt(f, 16)))].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j] + 1) j++;
    parts.push(i === j ? hex(nums[i]) : `${hex(nums[i])}-${hex(nums[j])}`);
    i = j + 1;
  }
  return parts.join(',');
}

function ledgerRow(fcp: string, path: number, row: FeilongFcpRow | undefined): FcpUsage {
  // a device z/VM never reported has no fcp row: unused and not found, as feilong's LEFT JOIN shows it
  if (!row) return { fcp, path, assignerId: '', reserved: 0, connections: 0, wwpnNpiv: '', wwpnPhy: '', chpid: '', state: 'notfound', owner: '', templateId: '' };
  return {
    fcp, path, assignerId: row.assignerId, reserved: row.reserved, connections: row.connections,
    wwpnNpiv: row.wwpnNpiv, wwpnPhy: row.wwpnPhy, chpid: row.chpid, ...(row.pchid ? { pchid: row.pchid } : {}), state: row.state,
    owner: row.owner === 'none' ? '' : row.owner, templateId: row.tmplId,
  };
}

function mapTemplate(data: FeilongData, t: FeilongData['templates'][number], host: string, now: string, unmapped: Unmapped[]) {
  const source = `sdk_fcp.sqlite template ${t.id} (${t.name})`;
  if (!isResourceName(t.id)) {
    unmapped.push({ source, reason: `template id ${JSON.stringify(t.id)} cannot be a resource name` });
    return undefined;
  }
  const devices = data.templateDevices.filter((d) => d.tmplId.toLowerCase() === t.id.toLowerCase());
  const pathNumbers = [...new Set(devices.map((d) => d.path))].sort((a, b) => a - b);
  // feilong's paths are 0, 1, 2 …; a gap would shift later paths down by one here
  if (pathNumbers.some((p, i) => p !== i)) unmapped.push({ source, reason: `paths ${pathNumbers.join(', ')} are not numbered from 0 without gaps: renumbered in order` });
  const paths = pathNumbers.map((p) => devices.filter((d) => d.path === p).map((d) => d.fcpId).sort());
  const fcpDevices = paths.map(compactPath).join(';');
  const problem = fcpDevicesProblem(fcpDevices);
  if (problem) {
    unmapped.push({ source, reason: problem });
    return undefined;
  }
  const byFcp = new Map(data.fcps.map((r) => [r.fcpId, r]));
  const fcps = paths.flatMap((list, path) => list.map((fcp) => ledgerRow(fcp, path, byFcp.get(fcp))));
  let minFcpPathsCount: number | undefined = t.minFcpPathsCount;
  if (minFcpPathsCount < 0) minFcpPathsCount = undefined; // -1: every path, our default
  else if (minFcpPathsCount === 0 || minFcpPathsCount > paths.length) {
    unmapped.push({ source, reason: `min_fcp_paths_count ${t.minFcpPathsCount} is outside 1..${paths.length}: every path is needed instead` });
    minFcpPathsCount = undefined;
  }
  const template: ZFcpTemplate = {
    apiVersion: API_VERSION,
    kind: 'ZFcpTemplate',
    metadata: { name: t.id.toLowerCase(), ...migratedMetadata(source) },
    spec: {
      name: t.name,
      description: t.description,
      fcpDevices,
      hostDefault: t.isDefault,
      storageProviders: data.spDefaults.filter((s) => s.tmplId.toLowerCase() === t.id.toLowerCase()).map((s) => s.spName),
      ...(minFcpPathsCount !== undefined ? { minFcpPathsCount } : {}),
      host,
    },
  };
  const status: ZFcpTemplateStatus = {
    observedGeneration: 1,
    phase: 'Ready',
    fcps,
    pathCount: paths.length,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Migrated', message: 'FCP ledger migrated from feilong', lastTransitionTime: now, observedGeneration: 1 }],
  };
  return { resource: template, status: status as Record<string, unknown>, source };
}

export function mapFcpTemplates(data: FeilongData, o: { host: string; now: string }): MigrationPlan {
  const plan: MigrationPlan = { items: [], unmapped: [] };
  for (const t of data.templates) {
    const item = mapTemplate(data, t, o.host, o.now, plan.unmapped);
    if (item) plan.items.push(item);
  }
  const known = new Set(data.templates.map((t) => t.id.toLowerCase()));
  for (const d of data.templateDevices) {
    if (!known.has(d.tmplId.toLowerCase())) plan.unmapped.push({ source: `sdk_fcp.sqlite template_fcp_mapping ${d.fcpId}`, reason: `its template ${d.tmplId} does not exist` });
  }
  for (const s of data.spDefaults) {
    if (!known.has(s.tmplId.toLowerCase())) plan.unmapped.push({ source: `sdk_fcp.sqlite template_sp_mapping ${s.spName}`, reason: `its template ${s.tmplId} does not exist` });
  }
  const inTemplate = new Set(data.templateDevices.map((d) => d.fcpId));
  for (const r of data.fcps) {
    if (inTemplate.has(r.fcpId)) continue;
    const usage = `assigner ${r.assignerId || "''"}, reserved ${r.reserved}, connections ${r.connections}, state ${r.state}, owner ${r.owner}`;
    plan.unmapped.push({ source: `sdk_fcp.sqlite fcp ${r.fcpId}`, reason: `in no template, and the FCP ledger lives in templates (${usage}); z/VM keeps its dedication` });
  }
  return plan;
}
