import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ZGuest } from '../../api/index.js';
import type { PerformanceRecord } from '../../hypervisor/index.js';
import { Envelope, ok } from '../envelope.js';
import { computeStats } from '../guests/outputs.js';
import type { GuestService } from '../guests/service.js';
import type { RouteDeps } from './route-deps.js';

const USERID_LIST = '^(\\s*[a-zA-Z0-9]{1,8}\\s*)(,\\s*[a-zA-Z0-9]{1,8}\\s*){0,}$';
/** `userid_list_array_query`: every query key maps to the list of its values (docs/rest-interface.md §1.3 #7). */
const UseridListQuery = Type.Object(
  { userid: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: USERID_LIST }))) },
  { additionalProperties: false },
);

/** The reference validates `dict_of_lists()` of the query string. */
async function queryAsLists(req: FastifyRequest): Promise<void> {
  const q = req.query as Record<string, string | string[]>;
  req.query = Object.fromEntries(Object.entries(q).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

/** The last `userid` value, split on commas (the reference ignores earlier repeats, §9.15). */
function useridsOf(query: { userid?: string[] }): string[] {
  const last = query.userid?.at(-1);
  if (!last) return [];
  return last.replace(/\s/g, '').split(',').filter((u) => u !== '').map((u) => u.toUpperCase());
}

async function requireAll(guests: GuestService, userids: string[]): Promise<ZGuest[]> {
  return Promise.all(userids.map((u) => guests.require(u)));
}

const NicRecord = Type.Object({ userid: Type.String(), interface: Type.String(), switch: Type.Union([Type.String(), Type.Null()]), port: Type.Union([Type.String(), Type.Null()]), comments: Type.Null() });
const tags = ['guests'];

/** GET /guests/stats, /guests/interfacestats (and its old name /guests/vnicsinfo), /guests/nics. */
const guestStatsRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests }) => {
  app.get('/guests/stats', {
    preValidation: queryAsLists,
    schema: { summary: 'Performance statistics of managed guests that are logged on', tags, querystring: UseridListQuery, response: { 200: Envelope(Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()))) } },
  }, async (req) => {
    const managed = await requireAll(guests, useridsOf(req.query));
    const byHost = new Map<string, ZGuest[]>();
    for (const g of managed) byHost.set(guests.hostOf(g), [...(byHost.get(guests.hostOf(g)) ?? []), g]);
    const records: PerformanceRecord[] = [];
    for (const group of byHost.values()) {
      records.push(...(await guests.hypervisorFor(group[0]).queryPerformance(group.map((g) => g.spec.userid.toUpperCase()))));
    }
    return ok(Object.fromEntries(records.map((r) => [r.userid.toUpperCase(), computeStats(r)])));
  });

  const interfaceStats = {
    preValidation: queryAsLists,
    schema: { summary: 'vNIC statistics of managed guests (guests without data are absent)', tags, querystring: UseridListQuery, response: { 200: Envelope(Type.Record(Type.String(), Type.Array(Type.Unknown()))) } },
  };
  const answerInterfaceStats = async (req: FastifyRequest) => {
    await requireAll(guests, useridsOf(req.query as { userid?: string[] }));
    // the Hypervisor port has no vswitch byte counters: every guest is "without data"
    return ok({});
  };
  app.get('/guests/interfacestats', interfaceStats, answerInterfaceStats);
  app.get('/guests/vnicsinfo', { ...interfaceStats, schema: { ...interfaceStats.schema, deprecated: true } }, answerInterfaceStats);

  app.get('/guests/nics', {
    schema: { summary: 'NICs of managed guests, filtered by userid, nic_id, vswitch', tags, querystring: Type.Object({ userid: Type.Optional(Type.String()), nic_id: Type.Optional(Type.String()), vswitch: Type.Optional(Type.String()) }), response: { 200: Envelope(Type.Array(NicRecord)) } },
  }, async (req) => {
    const items = await guests.listServed();
    const eq = (a: string | null | undefined, b: string | undefined) => b === undefined || (a ?? '').toUpperCase() === b.toUpperCase();
    const rows = items.flatMap((g) => (g.spec.nics ?? []).map((n) => ({
      userid: g.spec.userid.toUpperCase(), interface: n.vdev, switch: n.vswitch ?? null, port: n.nicId ?? null, comments: null,
    })));
    const q = req.query;
    return ok(rows.filter((r) => eq(r.userid, q.userid) && eq(r.port, q.nic_id) && eq(r.switch, q.vswitch)));
  });
};

export default guestStatsRoutes;
