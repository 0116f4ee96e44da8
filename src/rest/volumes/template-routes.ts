import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ZFcpTemplate } from '../../api/index.js';
import { fcpLedger } from '../../controllers/index.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { Bool, PositiveInteger, Userid } from '../schemas.js';
import type { HostFields } from './outputs.js';
import { computeTemplateDetail, computeTemplateListEntry, computeTemplateOutput } from './outputs.js';
import type { TemplateService } from './templates.js';

export interface TemplateRouteDeps {
  templates: TemplateService;
  config: RestConfig;
  hypervisors: HypervisorResolver;
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
/** The reference's strict string→bool for create/edit: the true set is true, anything else false. */
const coerce = (v: boolean | string | undefined) => (v === undefined ? undefined : typeof v === 'boolean' ? v : TRUE_WORDS.has(v.toLowerCase()));
/** Query booleans of the detail route: only the literal `true` (any case) is true (§9.14). */
const literalTrue = (v: string[] | undefined, dflt: boolean) => (v?.length ? v[0].toLowerCase() === 'true' : dflt);

const TemplateFields = {
  description: Type.Optional(Type.String({ maxLength: 255 })),
  fcp_devices: Type.Optional(Type.String({ maxLength: 4096, description: "paths separated by ';', ranges with '-'" })),
  host_default: Type.Optional(Bool),
  storage_providers: Type.Optional(Type.Array(Type.String())),
  min_fcp_paths_count: Type.Optional(PositiveInteger),
};
const CreateBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }), ...TemplateFields }, { additionalProperties: false });
const EditBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), ...TemplateFields }, { additionalProperties: false });
const IdParams = Type.Object({ template_id: Type.String({ minLength: 1, maxLength: 36 }) });
const ListQuery = Type.Object({
  template_id_list: Type.Optional(Type.Array(Type.String())),
  assigner_id: Type.Optional(Type.Array(Userid, { maxItems: 1 })),
  host_default: Type.Optional(Type.Array(Bool, { maxItems: 1 })),
  storage_providers: Type.Optional(Type.Array(Type.String())),
}, { additionalProperties: false });
const Flag = Type.Optional(Type.Array(Bool, { maxItems: 1 }));
const DetailQuery = Type.Object({ template_id_list: Type.Optional(Type.Array(Type.String())), raw: Flag, statistics: Flag, sync_with_zvm: Flag, sync_with_hv: Flag }, { additionalProperties: false });
const tags = ['volumes'];
const Any = Type.Unknown();

/** The reference validates `dict_of_lists()` of the query string. */
export async function queryAsLists(req: FastifyRequest): Promise<void> {
  const q = req.query as Record<string, string | string[]>;
  req.query = Object.fromEntries(Object.entries(q).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

/** `['id1','id2']` (a Python list literal, as the SDK reads it), or a bare comma list. */
export function parseIdList(text: string): string[] {
  const quoted = [...text.matchAll(/'([^']*)'|"([^"]*)"/g)].map((m) => m[1] ?? m[2]);
  const ids = quoted.length > 0 ? quoted : text.replace(/[[\]\s]/g, '').split(',');
  return ids.filter((s) => s !== '');
}

function filterTemplates(all: ZFcpTemplate[], q: { template_id_list?: string[]; assigner_id?: string[]; host_default?: (string | boolean)[]; storage_providers?: string[] }, require: (id: string) => Promise<ZFcpTemplate>) {
  const ids = q.template_id_list?.flatMap(parseIdList) ?? [];
  if (ids.length > 0) return Promise.all(ids.map(require));
  const assigner = q.assigner_id?.[0]?.toUpperCase();
  if (assigner) return all.filter((t) => (t.status?.fcps ?? []).some((r) => r.assignerId === assigner));
  const sps = q.storage_providers?.flatMap(parseIdList) ?? [];
  if (sps.length > 0) return all.filter((t) => sps.includes('all') ? (t.spec.storageProviders ?? []).length > 0 : sps.some((s) => (t.spec.storageProviders ?? []).includes(s)));
  if (q.host_default?.length && coerce(q.host_default[0])) return all.filter((t) => t.spec.hostDefault);
  return all;
}

/** /volumes/fcptemplates and /volumes/fcptemplates/detail, create, edit, delete. */
export const templateRoutes: FastifyPluginAsyncTypebox<TemplateRouteDeps> = async (app, { templates, config, hypervisors }) => {
  const hostFields = async (): Promise<HostFields> => {
    // host fields are informational: a host that does not answer leaves them at their defaults
    const info = await hypervisors.forHost(config.defaultHost).describeHost().catch((err: unknown) => void app.log.debug({ err }, 'host info unavailable for FCP template output'));
    const name = info?.hostname ?? config.defaultHost;
    return { cpc_sn: '', cpc_name: info?.cecModel ?? '', lpar: name, hypervisor_hostname: name };
  };

  app.post('/volumes/fcptemplates', { schema: { summary: 'Create an FCP multipath template', tags, body: CreateBody, response: { 200: Envelope(Any) } } }, async (req) => {
    const b = req.body;
    const t = await templates.create({
      name: b.name, description: b.description, fcpDevices: b.fcp_devices, hostDefault: coerce(b.host_default) ?? false,
      storageProviders: b.storage_providers, minFcpPathsCount: b.min_fcp_paths_count,
    });
    return ok(computeTemplateOutput(t, await hostFields()));
  });

  app.get('/volumes/fcptemplates', { preValidation: queryAsLists, schema: { summary: 'FCP multipath templates', tags, querystring: ListQuery, response: { 200: Envelope(Any) } } }, async (req) => {
    const found = await filterTemplates(await templates.list(), req.query, templates.require);
    const host = await hostFields();
    return ok({ fcp_templates: found.map((t) => computeTemplateListEntry(t, host)) });
  });

  app.get('/volumes/fcptemplates/detail', { preValidation: queryAsLists, schema: { summary: 'FCP multipath templates with raw rows and statistics', tags, querystring: DetailQuery, response: { 200: Envelope(Any) } } }, async (req) => {
    const q = req.query as Record<string, string[] | undefined>;
    const opts = { raw: literalTrue(q.raw, false), statistics: literalTrue(q.statistics, true) };
    const sync = literalTrue(q.sync_with_zvm ?? q.sync_with_hv, false);
    const found = await filterTemplates(await templates.list(), { template_id_list: q.template_id_list }, templates.require);
    // sync_with_zvm: the host's current FCP states, read live (the controller stores them on its next sync)
    const devices = sync ? await hypervisors.forHost(config.defaultHost).fcp?.queryFcps() : undefined;
    const host = await hostFields();
    return ok({
      fcp_templates: found.map((t) => {
        const rows = t.status?.fcps ?? [];
        const paths = [...new Set(rows.map((r) => r.path))].sort((a, b) => a - b).map((p) => rows.filter((r) => r.path === p).map((r) => r.fcp));
        return computeTemplateDetail(t, host, opts, devices ? fcpLedger.computeLedgerRows(rows, paths, devices) : rows);
      }),
    });
  });

  app.delete('/volumes/fcptemplates/:template_id', { schema: { summary: 'Delete an FCP multipath template without allocated FCPs', tags, params: IdParams, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    await templates.remove(req.params.template_id);
    return ok();
  });

  app.put('/volumes/fcptemplates/:template_id', { schema: { summary: 'Edit an FCP multipath template', tags, params: IdParams, body: EditBody, response: { 200: Envelope(Any) } } }, async (req) => {
    const b = req.body;
    const t = await templates.edit(req.params.template_id, {
      name: b.name, description: b.description, fcpDevices: b.fcp_devices, hostDefault: coerce(b.host_default),
      storageProviders: b.storage_providers, minFcpPathsCount: b.min_fcp_paths_count,
    });
    return ok(computeTemplateOutput(t, await hostFields()));
  });
};
