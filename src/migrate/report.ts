/** The migration summary: what is adopted or created, what could not be mapped and why, and conflicts. */
import type { FcpUsage, ZFcpTemplate } from '../api/index.js';
import type { ApplyDecision } from './apply.js';
import { describeResource } from './apply.js';
import type { Migration } from './migrate.js';

const VERB: Record<ApplyDecision['action'], string> = {
  create: 'create', 'write-status': 'resume (write status)', unchanged: 'unchanged', conflict: 'CONFLICT',
};

/** Where each FCP device of the fcp table and the templates ended up: one line each. */
function fcpCoverage(m: Migration): string[] {
  const where = new Map<string, string[]>();
  for (const item of m.items) {
    if (item.resource.kind !== 'ZFcpTemplate') continue;
    const t = item.resource as ZFcpTemplate;
    for (const r of (item.status?.fcps ?? []) as FcpUsage[]) where.set(r.fcp, [...(where.get(r.fcp) ?? []), `${t.spec.name} path ${r.path}`]);
  }
  const all = [...new Set([...m.data.fcps.map((f) => f.fcpId), ...m.data.templateDevices.map((d) => d.fcpId)])].sort();
  return all.map((fcp) => `  ${fcp}: ${where.get(fcp)?.join(', ') ?? 'not migrated (see above)'}`);
}

export function renderSummary(m: Migration, decisions: readonly ApplyDecision[], o: { dbDir: string; host: string; namespace: string; applied: boolean }): string {
  const d = m.data;
  const lines = [
    `feilong migration of ${o.dbDir} → host ${o.host}, namespace ${o.namespace}${o.applied ? '' : ' (dry run: nothing written to a store)'}`,
    `read: ${d.guests.length} guests, ${d.switches.length} NIC rows, ${d.images.length} images, ${d.templates.length} FCP templates, ` +
      `${d.templateDevices.length} template devices, ${d.fcps.length} FCP devices; live directory: ${m.hostReachable ? 'read' : 'no host reachable'}`,
    '',
    `resources (${decisions.length}):`,
    ...decisions.map((x) => `  ${VERB[x.action]} ${describeResource(x.item.resource)} ← ${x.item.source}${x.reason ? `: ${x.reason}` : ''}`),
    '',
    `could not be mapped (${m.unmapped.length}):`,
    ...m.unmapped.map((u) => `  ${u.source}: ${u.reason}`),
    '',
    `conflicts with existing resources (${decisions.filter((x) => x.action === 'conflict').length}; never overwritten):`,
    ...decisions.filter((x) => x.action === 'conflict').map((x) => `  ${describeResource(x.item.resource)}: ${x.reason}`),
    '',
    'FCP devices:',
    ...fcpCoverage(m),
  ];
  return `${lines.join('\n')}\n`;
}

export function summaryJson(m: Migration, decisions: readonly ApplyDecision[]) {
  return {
    resources: decisions.map((x) => ({ action: x.action, kind: x.item.resource.kind, namespace: x.item.resource.metadata.namespace, name: x.item.resource.metadata.name, source: x.item.source, ...(x.reason ? { reason: x.reason } : {}) })),
    unmapped: m.unmapped,
  };
}
