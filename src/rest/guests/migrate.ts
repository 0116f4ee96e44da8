import { Type } from '@sinclair/typebox';
import { API_VERSION, type LiveMigrateParms, type ZGuestAction } from '../../api/index.js';
import { feilongErrors, RequestValidationError } from '../feilong-error.js';
import { Userid } from '../schemas.js';
import { StringEnum } from '../validation.js';
import type { ActionContext } from './actions.js';
import { restOwned } from '../ownership.js';

const Operation = StringEnum(['move', 'test'] as const);
const Parms = Type.Object({
  maxtotal: Type.Optional(Type.Integer()),
  maxquiesce: Type.Optional(Type.Integer()),
  immediate: Type.Optional(Type.String()),
  forcearch: Type.Optional(Type.String()),
  forcedomain: Type.Optional(Type.String()),
  forcestorage: Type.Optional(Type.String()),
}, { additionalProperties: false });
const OptionalUserid = Type.Optional(Type.Union([Userid, Type.Null(), Type.Literal('')]));

/**
 * live_migrate_vm (docs/rest-interface.md §1.4): `operation` (newest interface name: `lgr_action`) and
 * `dest_zcc_userid` (`dest_svc_userid`) are accepted under both names.
 */
export const LiveMigrateBody = Type.Object({
  destination: Userid,
  operation: Type.Optional(Operation),
  lgr_action: Type.Optional(Operation),
  parms: Type.Optional(Parms),
  dest_zcc_userid: OptionalUserid,
  dest_svc_userid: OptionalUserid,
}, { additionalProperties: false });

interface Body {
  destination: string;
  operation?: 'move' | 'test';
  lgr_action?: 'move' | 'test';
  parms?: { maxtotal?: number; maxquiesce?: number; immediate?: string; forcearch?: string; forcedomain?: string; forcestorage?: string };
}

/** feilong's parms strings: a force/immediate word other than no/false/empty turns it on. */
const on = (v: string | undefined) => v !== undefined && !['', '0', 'no', 'false', 'off', 'n', 'f'].includes(v.trim().toLowerCase());

export function toLiveMigrateParms(p: Body['parms'] = {}): LiveMigrateParms {
  const out: LiveMigrateParms = {};
  // a negative limit means "no limit", as NOLIMIT does for VMRELOCATE
  if (p.maxtotal !== undefined && p.maxtotal >= 0) out.maxTotal = p.maxtotal;
  if (p.maxquiesce !== undefined && p.maxquiesce >= 0) out.maxQuiesce = p.maxquiesce;
  if (on(p.immediate)) out.immediate = true;
  if (on(p.forcearch)) out.forceArch = true;
  if (on(p.forcedomain)) out.forceDomain = true;
  if (on(p.forcestorage)) out.forceStorage = true;
  return out;
}

/**
 * A ZGuestAction LiveMigrate, then the wait for its result (write-and-wait.ts; docs/architecture.md §4). The guest must be
 * logged on (409 rs1, as the reference checks before VMRELOCATE).
 */
export async function liveMigrate(ctx: ActionContext): Promise<string> {
  const body = ctx.body as unknown as Body;
  const operation = body.operation ?? body.lgr_action;
  if (!operation) throw new RequestValidationError("'operation' is a required property");
  const { guest, service } = ctx;
  const userid = guest.spec.userid.toUpperCase();
  if ((await service.hypervisorFor(guest).queryPowerState(userid)) === 'off') throw feilongErrors.guestNotActive(userid);
  const namespace = guest.metadata.namespace ?? service.config.namespace;
  const obj: ZGuestAction = {
    apiVersion: API_VERSION,
    kind: 'ZGuestAction',
    metadata: restOwned({ name: `${guest.metadata.name}-migrate-${Date.now().toString(36)}`, namespace }),
    spec: { guest: guest.metadata.name, action: 'LiveMigrate', liveMigrate: { destination: body.destination.toUpperCase(), operation, parms: toLiveMigrateParms(body.parms) } },
  };
  // its failure is the answer; the action stays as the record of what was tried
  await service.writes.create(obj, {
    what: `the live migration of guest '${userid}'`,
    see: `ZGuestAction ${namespace}/${obj.metadata.name}`,
    ready: (a) => a.status?.phase === 'Succeeded',
    notFound: () => feilongErrors.guestNotFound(userid),
    exists: () => feilongErrors.conflict(1, `a live migration of guest '${userid}' was just requested`),
    undo: () => false,
  });
  return '';
}
