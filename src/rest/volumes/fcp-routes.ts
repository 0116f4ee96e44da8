import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FcpUsage } from '../../api/index.js';
import { fcpLedger } from '../../controllers/index.js';
import type { StateStore } from '../../store/port.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { computeErrorReply } from '../error-handler.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { feilongErrors } from '../feilong-error.js';
import { readJsonBody } from '../json-body.js';
import { validateOrThrow } from '../validation.js';
import { volumeErrors } from './errors.js';
import { computeFcpUsage, effectiveMinPaths, isKnownFcp } from './outputs.js';
import type { TemplateService } from './templates.js';

export interface FcpRouteDeps {
  store: StateStore;
  templates: TemplateService;
  config: RestConfig;
  hypervisors: HypervisorResolver;
}

const FcpParams = Type.Object({ fcp_id: Type.String({ pattern: '^[0-9a-fA-F]{4}$' }) });
const USERID_LIST = '^(\\s*[a-zA-Z0-9]{1,8}\\s*)(,\\s*[a-zA-Z0-9]{1,8}\\s*){0,}$';
const ConnParams = Type.Object({ userid: Type.String({ minLength: 1, pattern: USERID_LIST }) });
const SetUsageBody = Type.Object({
  info: Type.Object({
    userid: Type.Optional(Type.Union([Type.String({ maxLength: 8 }), Type.Null()])),
    reserved: Type.Integer({ minimum: 0, maximum: 1 }),
    connections: Type.Integer({ minimum: 0 }),
    fcp_template_id: Type.Optional(Type.Union([Type.String({ maxLength: 36 }), Type.Null()])),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
const ConnBody = Type.Object({
  info: Type.Object({
    reserve: Type.Boolean(),
    fcp_template_id: Type.Optional(Type.Union([Type.String({ maxLength: 36 }), Type.Null()])),
    storage_provider: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    pchid_info: Type.Optional(Type.Unknown()),
  }),
});
type ConnBody = { info: { reserve: boolean; fcp_template_id?: string | null; storage_provider?: string | null } };
const BootmapBody = Type.Object({
  info: Type.Object({
    fcpchannel: Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{4}$' }), { minItems: 1 }),
    wwpn: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    lun: Type.String({ minLength: 1 }),
  }),
});
type BootmapBody = { info: { fcpchannel: string[]; wwpn: string[]; lun: string } };
const tags = ['volumes'];
const Any = Type.Unknown();

/** §5.10: the connector of the allocated FCPs. */
function connector(rows: FcpUsage[], userid: string, templateId: string, hostname: string, changed: boolean) {
  return {
    zvm_fcp: rows.map((r) => r.fcp),
    wwpns: rows.map((r) => r.wwpnNpiv),
    phy_to_virt_initiators: Object.fromEntries(rows.map((r) => [r.wwpnPhy, r.wwpnNpiv])),
    host: `${hostname}_${userid}`,
    fcp_paths: rows.length,
    fcp_template_id: templateId,
    cpc_sn: '', cpc_name: '', lpar: hostname, hypervisor_hostname: hostname,
    pchid_fcp_map: {},
    is_reserved_changed: changed,
  };
}

/** GET/PUT /volumes/fcp/{id}, GET /volumes/conn/{userid}, PUT /volumes/volume_refresh_bootmap. */
export const fcpRoutes: FastifyPluginAsyncTypebox<FcpRouteDeps> = async (app, { store, templates, config, hypervisors }) => {
  app.get('/volumes/fcp/:fcp_id', { schema: { summary: 'Usage of an FCP: [userid, reserved, connections, template id]', tags, params: FcpParams, response: { 200: Envelope(Any) } } }, async (req) => {
    const fcp = req.params.fcp_id.toLowerCase();
    const t = await fcpLedger.findTemplateOf(store, fcp);
    const row = t?.status?.fcps?.find((r) => r.fcp === fcp);
    if (!t || !row || !isKnownFcp(row)) throw volumeErrors.fcpNotFound(req.params.fcp_id);
    return ok(computeFcpUsage(row, t.metadata.name));
  });

  app.put('/volumes/fcp/:fcp_id', { schema: { summary: 'Set the usage of an FCP (HTTP 200 whatever happens, as the reference)', tags, params: FcpParams, body: SetUsageBody, response: { 200: Envelope(EmptyOutput) } } }, async (req, reply) => {
    const fcp = req.params.fcp_id.toLowerCase();
    const { userid, reserved, connections, fcp_template_id: preferred } = req.body.info;
    try {
      const t = await fcpLedger.findTemplateOf(store, fcp, preferred ?? undefined);
      if (!t) throw volumeErrors.fcpNotFound(req.params.fcp_id);
      await templates.changeUsage(t.metadata.name, (rows) => ({
        rows: fcpLedger.computeSetUsage(rows, fcp, { userid: (userid ?? '').toUpperCase(), reserved, connections }), value: undefined,
      }));
      return ok();
    } catch (err) {
      // the reference forces 200 on this route (§1.2 #19, §9.2); the envelope still tells the failure
      return reply.code(200).send(computeErrorReply(err).body as ReturnType<typeof ok<''>>);
    }
  });

  app.get('/volumes/conn/:userid', { schema: { summary: 'Allocate (reserve) or release FCPs of a template for a guest; JSON body on a GET', tags, params: ConnParams, response: { 200: Envelope(Any) } } }, async (req) => {
    const body = validateOrThrow<ConnBody>(ConnBody, await readJsonBody(req.raw));
    const userid = req.params.userid.trim().toUpperCase();
    const t = await templates.forConnection(body.info.fcp_template_id, body.info.storage_provider);
    if (!t) throw volumeErrors.connector(userid, 'No FCP Multipath Template is specified and no default FCP Multipath Template is found.');
    // the host name is informational: a host that does not answer leaves the configured name
    const info = await hypervisors.forHost(t.spec.host ?? config.defaultHost).describeHost().catch((err: unknown) => void req.log.debug({ err }, 'host info unavailable for the volume connector'));
    const hostname = info?.hostname ?? config.defaultHost;
    const result = await templates.changeUsage(t.metadata.name, (rows) => {
      const a = body.info.reserve ? fcpLedger.computeReserve(rows, userid, effectiveMinPaths(t)) : fcpLedger.computeRelease(rows, userid);
      return { rows: a.changed ? a.rows : undefined, value: a };
    });
    const out = connector(result.fcps, userid, t.metadata.name, hostname, result.changed);
    return ok(result.reason ? { ...out, empty_fcp_list_reason: result.reason } : out);
  });

  app.put('/volumes/volume_refresh_bootmap', { schema: { summary: 'Paths of a boot volume the host can reach, per FCP', tags, response: { 200: Envelope(Any) } } }, async (req) => {
    const { info } = validateOrThrow<BootmapBody>(BootmapBody, req.body);
    const fcp = hypervisors.forHost(config.defaultHost).fcp;
    if (!fcp) throw feilongErrors.notImplemented('volume_refresh_bootmap', 30);
    const usable = new Set((await fcp.queryFcps()).filter((d) => d.state !== 'offline').map((d) => d.fcp));
    const paths = info.fcpchannel.map((c) => c.toLowerCase()).filter((c) => usable.has(c));
    if (paths.length === 0) throw volumeErrors.refreshBootmap(1, `none of the FCP channels ${info.fcpchannel.join(', ')} is usable on the host`);
    const wwpns = info.wwpn.map((w) => w.toLowerCase().replace(/^0x/, ''));
    return ok(Object.fromEntries(paths.map((c) => [c, wwpns])));
  });
};

