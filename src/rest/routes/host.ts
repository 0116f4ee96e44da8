import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { DEFAULT_GUEST_DEFAULTS } from '../../controllers/index.js';
import { HypervisorError } from '../../errors.js';
import { type DiskPoolInfo, type HostQueries, type Hypervisor, toFeilongHostInfo } from '../../hypervisor/index.js';
import { Envelope, ok } from '../envelope.js';
import { FeilongError, ModID, feilongErrors } from '../feilong-error.js';
import { BOOLEAN_WORDS } from '../schemas.js';
import { StringEnum } from '../validation.js';
import type { RouteDeps } from './route-deps.js';

const PoolName = Type.String({ pattern: '^\\w+:\\w+$' });
const DiskpoolQuery = Type.Object({ poolname: Type.Optional(PoolName), details: Type.Optional(StringEnum(BOOLEAN_WORDS)) }, { additionalProperties: false });
const PoolQuery = Type.Object({ poolname: Type.Optional(PoolName) }, { additionalProperties: false });
const VolumeQuery = Type.Object({ volumename: Type.Optional(Type.String({ minLength: 1, pattern: '^(\\w{1,6})$' })) }, { additionalProperties: false });
const DiskParams = Type.Object({ disk: Type.String({ minLength: 1 }) });
const Json = Type.Record(Type.String(), Type.Unknown());
const tags = ['host'];
const GB = 1024 ** 3;

/** feilong converts the pool sizes to whole GB (§3.12). */
const poolTotals = (p: DiskPoolInfo) => ({ disk_total: Math.round(p.totalBytes / GB), disk_used: Math.round(p.usedBytes / GB), disk_available: Math.round(p.freeBytes / GB) });

/** An unknown pool is SMT 4/5/402 in the reference (→ 404); the host answers 420/8 (group not defined). */
async function withPool<T>(pool: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof HypervisorError && err.rc === 420 && err.rs === 8) {
      throw new FeilongError('NOT_FOUND', { overallRC: 4, modID: ModID.smt, rc: 5, rs: 402, errmsg: `No information was found for the specified pool(s): ${pool.split(':').pop()}` });
    }
    throw err;
  }
}

/** Host routes (docs/rest-interface.md §1.2 rows 40–45, §3.12, §5.6–5.7): live reads, never a resource write. */
const hostRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { config, hypervisors }) => {
  const hv = (): Hypervisor => hypervisors.forHost(config.defaultHost);
  const queries = (): HostQueries => {
    const q = hv().hostQueries;
    if (!q) throw feilongErrors.notImplemented('host queries', ModID.monitor);
    return q;
  };
  /** Pools summed by GET /host and used when no poolname is given: the configured default pool. */
  const configuredPool = () => config.diskPool ?? DEFAULT_GUEST_DEFAULTS.diskPool;
  const poolInfo = (pool: string) => withPool(pool, () => hv().describeDiskPool(pool));

  app.get('/host', { schema: { summary: 'Host information', tags, response: { 200: Envelope(Json) } } }, async () => {
    const [summary, pool] = await Promise.all([queries().describe(), poolInfo(configuredPool())]);
    return ok(toFeilongHostInfo(summary, poolTotals(pool)));
  });

  app.get('/host/guests', { schema: { summary: 'Every directory entry of the host', tags, response: { 200: Envelope(Type.Array(Type.String())) } } }, async () =>
    ok(await hv().listDirectory()));

  app.get('/host/diskpool', { schema: { summary: 'Disk pool totals (GB), or its free regions with details=true', tags, querystring: DiskpoolQuery, response: { 200: Envelope(Json) } } }, async (req) => {
    const pool = req.query.poolname ?? configuredPool();
    // only the literal true counts, although the schema admits every boolean word (§9.14)
    if (req.query.details?.toLowerCase() === 'true') {
      const regions = await withPool(pool, () => queries().diskPoolRegions(pool));
      return ok({ [pool.split(':').pop()!.toUpperCase()]: regions });
    }
    return ok(poolTotals(await poolInfo(pool)));
  });

  app.get('/host/disk/:disk', { schema: { summary: 'Disk pool totals (older form of /host/diskpool)', tags, deprecated: true, params: DiskParams, response: { 200: Envelope(Json) } } }, async (req) =>
    ok(poolTotals(await poolInfo(req.params.disk))));

  app.get('/host/diskpool_volumes', { schema: { summary: 'Volumes of a disk pool', tags, querystring: PoolQuery, response: { 200: Envelope(Json) } } }, async (req) => {
    const pool = req.query.poolname ?? configuredPool();
    const volumes = await withPool(pool, () => queries().diskPoolVolumes(pool));
    return ok({ [pool.split(':').pop()!.toUpperCase()]: { diskpool_volumes: volumes.join(' ') } });
  });

  app.get('/host/volume', { schema: { summary: 'Type and size of a DASD volume', tags, querystring: VolumeQuery, response: { 200: Envelope(Json) } } }, async (req) => {
    const volumes = await queries().volumes();
    const wanted = req.query.volumename?.toUpperCase();
    if (wanted === undefined) return ok(Object.fromEntries(volumes.map((v) => [v.volume_name, { volume_type: v.volume_type, volume_size: v.volume_size }])));
    const found = volumes.find((v) => v.volume_name.toUpperCase() === wanted);
    if (!found) {
      throw new FeilongError('NOT_FOUND', {
        overallRC: 404, modID: ModID.zvmsdk, rc: 404, rs: 2,
        errmsg: `Not found error: 'Not found the volume info for the volume ${wanted}: make sure the volume is in the disk_pool configured for sdkserver.'`,
      });
    }
    return ok({ volume_type: found.volume_type, volume_size: found.volume_size });
  });

  app.get('/host/ssi', { schema: { summary: 'SSI cluster information ([] when not a member)', tags, response: { 200: Envelope(Type.Array(Type.String())) } } }, async () =>
    ok(await queries().ssi()));
};

export default hostRoutes;
