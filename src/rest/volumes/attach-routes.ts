import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { API_VERSION, type ZVolume, type ZVolumeSpec } from '../../api/index.js';
import { AlreadyExistsError, NotFoundError } from '../../errors.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import type { RestConfig } from '../config.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { FeilongError, fromHvError, feilongErrors } from '../feilong-error.js';
import { waitForObject } from '../guests/wait.js';
import { Bool, OsVersion, Userid } from '../schemas.js';
import { validateOrThrow } from '../validation.js';
import { volumeErrors } from './errors.js';
import { restOwned } from '../ownership.js';

export interface AttachRouteDeps {
  store: StateStore;
  config: RestConfig;
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

const synced = (v: ZVolume) => v.status?.conditions?.find((c) => c.type === 'Synced');

/** The controller's failure for the current generation, if it reported one. */
function failureOf(v: ZVolume, since?: string): FeilongError | undefined {
  const s = synced(v);
  if (!s || s.status !== 'False' || (v.status?.observedGeneration ?? 0) < (v.metadata.generation ?? 1)) return undefined;
  if (since && s.lastTransitionTime < since) return undefined;
  return v.status?.lastError ? fromHvError(v.status.lastError) : undefined;
}

/** POST /guests/volumes (attach) and DELETE /guests/volumes (detach): a ZVolume created or deleted, then waited for. */
export const attachRoutes: FastifyPluginAsyncTypebox<AttachRouteDeps> = async (app, { store, config }) => {
  const waitOpts = () => ({ timeoutMs: config.waitTimeoutMs, pollIntervalMs: config.pollIntervalMs });
  const seconds = Math.round(config.waitTimeoutMs / 1000);
  const keyFor = (spec: ZVolumeSpec): ObjectKey => ({ namespace: config.namespace, name: volumeName(spec.assignerId, spec.lun) });

  async function waitGone(key: ObjectKey, since: string): Promise<void> {
    const outcome = await waitForObject<ZVolume, true>(store, 'ZVolume', key, (v) => {
      if (!v) return true;
      const failure = failureOf(v, since);
      if (failure) throw failure;
      return undefined;
    }, waitOpts());
    if (!outcome.done) throw feilongErrors.waitTimeout(`volume ${key.name} to be detached`, seconds);
  }

  async function removeFailed(key: ObjectKey): Promise<void> {
    try {
      await store.delete('ZVolume', key);
      await waitGone(key, new Date().toISOString());
    } catch (err) {
      if (!(err instanceof NotFoundError)) app.log.warn({ err, key }, 'could not remove the ZVolume of a failed attach');
    }
  }

  app.post('/guests/volumes', { schema: { summary: 'Attach a volume to a guest through FCP devices', tags, body: Body, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const spec = computeVolumeSpec(validateOrThrow<{ info: { connection: ConnectionInput } }>(Body, req.body).info.connection, config.defaultHost);
    const key = keyFor(spec);
    let created: ZVolume;
    try {
      created = await store.create<ZVolume>({ apiVersion: API_VERSION, kind: 'ZVolume', metadata: restOwned({ ...key }), spec });
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw volumeErrors.alreadyAttached(spec.lun, spec.assignerId);
      throw err;
    }
    const generation = created.metadata.generation ?? 1;
    const outcome = await waitForObject<ZVolume, true>(store, 'ZVolume', key, (v) => {
      if (!v) throw volumeErrors.notAttached(spec.lun, spec.assignerId);
      const failure = failureOf(v);
      if (failure) throw failure;
      return (v.status?.observedGeneration ?? 0) >= generation && v.status?.phase === 'Attached' ? true : undefined;
    }, waitOpts()).catch(async (err: unknown) => {
      // a rolled-back attach leaves nothing behind; without rollback the partial attach stays for a detach
      if (err instanceof FeilongError && spec.doRollback !== false) await removeFailed(key);
      throw err;
    });
    if (!outcome.done) throw feilongErrors.waitTimeout(`volume ${spec.lun} to be attached to ${spec.assignerId}`, seconds);
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
    const since = new Date().toISOString();
    try {
      await store.delete('ZVolume', key);
    } catch (err) {
      if (err instanceof NotFoundError) return ok();
      throw err;
    }
    await waitGone(key, since);
    return ok();
  });
};
