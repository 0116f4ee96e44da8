import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { API_VERSION, type ZVolume, type ZVolumeSpec } from '../../api/index.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import type { RestConfig } from '../config.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { feilongErrors } from '../feilong-error.js';
import type { WriteAndWait } from '../write-and-wait.js';
import { Bool, OsVersion, Userid } from '../schemas.js';
import { validateOrThrow } from '../validation.js';
import { volumeErrors } from './errors.js';
import { restOwned } from '../ownership.js';

export interface AttachRouteDeps {
  store: StateStore;
  config: RestConfig;
  writes: WriteAndWait;
}

const Fcps = Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{4}$' }));
const Hex16 = '^0x[0-9a-fA-F]{16}$';
/** `connection_info` (docs/rest-interface.md §1.5); `hv_fcp` is the newest releases' name of `zvm_fcp`. */
const Connection = Type.Object({
  assigner_id: Userid,
  zvm_fcp: Type.Optional(Fcps),
  hv_fcp: Type.Optional(Fcps),
  fcp_template_id: Type.Optional(Type.Union([Type.String({ maxLength: 36 }), Type.Null()])),
  target_wwpn: Type.Array(Type.String({ pattern: Hex16 })),
  target_lun: Type.String({ pattern: Hex16 }),
  os_version: OsVersion,
  multipath: Bool,
  mount_point: Type.String(),
  is_root_volume: Type.Optional(Bool),
  update_connections_only: Type.Optional(Bool),
  do_rollback: Type.Optional(Bool),
}, { required: ['assigner_id', 'target_wwpn', 'target_lun', 'multipath', 'os_version', 'mount_point'] });
const Body = Type.Object({ info: Type.Object({ connection: Connection }, { additionalProperties: false }) }, { additionalProperties: false });
type ConnectionInput = {
  assigner_id: string; zvm_fcp?: string[]; hv_fcp?: string[]; fcp_template_id?: string | null; target_wwpn: string[]; target_lun: string;
  os_version: string; multipath: boolean | string; mount_point: string; is_root_volume?: boolean | string;
  update_connections_only?: boolean | string; do_rollback?: boolean | string;
};
const tags = ['volumes'];

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const bool = (v: boolean | string | undefined, dflt: boolean) => (v === undefined ? dflt : typeof v === 'boolean' ? v : TRUE_WORDS.has(v.toLowerCase()));

/** The ZVolume spec of a connection; FCPs lower case, each once. */
function computeVolumeSpec(c: ConnectionInput, host: string): ZVolumeSpec {
  const fcps = [...new Set((c.zvm_fcp ?? c.hv_fcp ?? []).map((f) => f.toLowerCase()))];
  if (fcps.length === 0) throw feilongErrors.invalidArg("'zvm_fcp' is a required property and must list at least one FCP");
  if (c.target_wwpn.length === 0) throw feilongErrors.invalidArg('target_wwpn must list at least one WWPN');
  return {
    host,
    assignerId: c.assigner_id.toUpperCase(),
    ...(c.fcp_template_id ? { fcpTemplateId: c.fcp_template_id } : {}),
    fcps,
    targetWwpns: [...new Set(c.target_wwpn.map((w) => w.toLowerCase()))],
    lun: c.target_lun.toLowerCase(),
    osVersion: c.os_version,
    multipath: bool(c.multipath, false),
    mountPoint: c.mount_point,
    isRootVolume: bool(c.is_root_volume, false),
    doRollback: bool(c.do_rollback, true),
    updateConnectionsOnly: bool(c.update_connections_only, false),
  };
}

/** One ZVolume per guest and LUN. */
export const volumeName = (userid: string, lun: string) => `${userid.toLowerCase()}-${lun.toLowerCase()}`;

/** POST /guests/volumes (attach) and DELETE /guests/volumes (detach): a ZVolume created or deleted, then waited for. */
export const attachRoutes: FastifyPluginAsyncTypebox<AttachRouteDeps> = async (app, { store, config, writes }) => {
  const keyFor = (spec: ZVolumeSpec): ObjectKey => ({ namespace: config.namespace, name: volumeName(spec.assignerId, spec.lun) });

  app.post('/guests/volumes', { schema: { summary: 'Attach a volume to a guest through FCP devices', tags, body: Body, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const spec = computeVolumeSpec(validateOrThrow<{ info: { connection: ConnectionInput } }>(Body, req.body).info.connection, config.defaultHost);
    const key = keyFor(spec);
    await writes.create<ZVolume>({ apiVersion: API_VERSION, kind: 'ZVolume', metadata: restOwned({ ...key }), spec }, {
      what: `volume ${spec.lun} to be attached to ${spec.assignerId}`,
      ready: (v) => v.status?.phase === 'Attached',
      notFound: () => volumeErrors.notAttached(spec.lun, spec.assignerId),
      exists: () => volumeErrors.alreadyAttached(spec.lun, spec.assignerId),
      // a rolled-back attach leaves nothing behind; without rollback the partial attach stays for a detach
      undo: () => spec.doRollback !== false,
    });
    return ok();
  });

  app.delete('/guests/volumes', { schema: { summary: 'Detach a volume from a guest', tags, body: Body, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const spec = computeVolumeSpec(validateOrThrow<{ info: { connection: ConnectionInput } }>(Body, req.body).info.connection, config.defaultHost);
    const key = keyFor(spec);
    const vol = await store.get<ZVolume>('ZVolume', key);
    if (!vol) throw volumeErrors.notAttached(spec.lun, spec.assignerId);
    // the detach options of this request decide how the controller detaches
    const options = { updateConnectionsOnly: spec.updateConnectionsOnly, doRollback: spec.doRollback, isRootVolume: spec.isRootVolume, multipath: spec.multipath };
    await store.patch('ZVolume', key, { spec: options });
    await writes.remove('ZVolume', key, { what: `volume ${key.name} to be detached`, failures: true });
    return ok();
  });
};
