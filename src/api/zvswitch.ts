import { Type, type Static, type TLiteral } from '@sinclair/typebox';
import { CommonStatusFields, Userid, described, resourceSchema, type Resource } from './common.js';
import { DEFAULT_HOST } from './host.js';
import type { CrossFieldRule } from './kinds.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

/** z/VM vswitch names: 1-8 characters (CP's DEFINE VSWITCH name rules). */
export const VswitchName = Type.String({ pattern: '^[A-Za-z0-9@#$_]{1,8}$', minLength: 1, maxLength: 8, description: 'z/VM vswitch name' });

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(values.map((v) => Type.Literal(v)) as TLiteral<T>[], { description });

/** VLAN id of an authorized user: -1 (no VLAN) or 1-4094; 0 is refused by a cross-field rule. */
const UserVlanId = Type.Integer({ minimum: -1, maximum: 4094 });

export const VswitchUser = Type.Object(
  {
    userid: described(Userid, 'z/VM userid granted access'),
    vlanIds: Type.Optional(Type.Array(UserVlanId, { maxItems: 64, description: 'VLAN ids the user may use; -1 means none' })),
  },
  { additionalProperties: false, description: 'a user granted access to the switch' },
);
export type VswitchUser = Static<typeof VswitchUser>;

/**
 * Every create parameter of the interface (docs/rest-interface.md §3.10), in the canonical
 * upper-case spelling. They cannot change after creation: z/VM would need the switch redefined,
 * which cuts every coupled NIC. Authorized users converge at any time.
 */
export const ZVswitchSpec = Type.Object(
  {
    switchName: Type.Optional(VswitchName),
    host: Type.Optional(Type.String({ default: DEFAULT_HOST, description: 'name of the ZHost' })),
    rdev: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f]{1,4}( +[0-9A-Fa-f]{1,4}){0,2}$', description: 'up to three real OSA device numbers, blank-separated' })),
    controller: Type.Optional(Type.String({ pattern: '^(\\*|[A-Za-z0-9@#$_]{1,8})$', description: 'controller userid, or * for any' })),
    connection: Type.Optional(literals(['CONNECT', 'DISCONNECT', 'NOUPLINK'], 'uplink connection; default CONNECT')),
    networkType: Type.Optional(literals(['IP', 'ETHERNET'], 'transport; default ETHERNET')),
    router: Type.Optional(literals(['NONROUTER', 'PRIROUTER'], 'PRIROUTER only with networkType IP; default NONROUTER')),
    vid: Type.Optional(Type.String({
      pattern: '^(UNAWARE|AWARE|[1-9][0-9]{0,2}|[1-3][0-9]{3}|40[0-8][0-9]|409[0-4])$',
      description: 'UNAWARE, AWARE or a default VLAN id 1-4094 (a string); default UNAWARE',
    })),
    portType: Type.Optional(literals(['ACCESS', 'TRUNK'], 'default ACCESS; VLAN-aware switches only')),
    gvrp: Type.Optional(literals(['GVRP', 'NOGVRP'], 'default GVRP; VLAN-aware switches only')),
    queueMem: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'QDIO buffer size in MB; default 8' })),
    nativeVid: Type.Optional(Type.Integer({ minimum: 1, maximum: 4094, description: 'native VLAN id; absent means z/VM chooses' })),
    persist: Type.Optional(Type.Boolean({ default: true, description: 'also define the switch in the system configuration' })),
    authorizedUsers: Type.Optional(Type.Array(VswitchUser, { maxItems: 256, description: 'users granted access, with their VLAN ids' })),
  },
  { additionalProperties: false, description: 'a z/VM virtual switch; create parameters are fixed, authorized users converge' },
);
export type ZVswitchSpec = Static<typeof ZVswitchSpec>;

export const ZVswitchStatus = Type.Object({
  ...CommonStatusFields,
  host: Type.Optional(Type.String({ description: 'the ZHost the switch is on' })),
  switchName: Type.Optional(Type.String({ description: 'the switch name on the host' })),
  switchStatus: Type.Optional(Type.String({ description: 'switch status as z/VM reports it' })),
  networkType: Type.Optional(Type.String({ description: 'transport the host reports: IP or ETHERNET (defaults applied)' })),
  vlan: Type.Optional(Type.String({ description: 'VLAN mode the host reports: UNAWARE, or the default VLAN id of an aware switch' })),
  owned: Type.Optional(Type.Boolean({ description: 'created by this resource, so deleted with it; an adopted switch is left on the host' })),
  authorizedUsers: Type.Optional(Type.Array(
    Type.Object({
      userid: Type.String({ description: 'z/VM userid' }),
      vlanIds: Type.Array(Type.Integer(), { description: 'VLAN ids granted' }),
    }),
    { description: 'users granted access, as the host reports them' },
  )),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Virtual_Network_Vswitch_Query_Extended, as GET /vswitches/{name} shows it' })),
}, { description: 'the switch as the host reports it' });
export type ZVswitchStatus = Static<typeof ZVswitchStatus>;

export const ZVswitchSchema = resourceSchema('ZVswitch', ZVswitchSpec, ZVswitchStatus);
export type ZVswitch = Resource<ZVswitchSpec, ZVswitchStatus>;

export const VSWITCH_FINALIZER = 'zvm.dev/vswitch-protection';

/** The switch name on the host: spec.switchName, else the resource name. */
export function vswitchNameOf(v: Pick<ZVswitch, 'spec' | 'metadata'>): string {
  return (v.spec.switchName ?? v.metadata.name).toUpperCase();
}

/** Create parameters are fixed once the switch exists (see ZVswitchSpec). */
export const ZVSWITCH_IMMUTABLE = [
  'switchName', 'host', 'rdev', 'controller', 'connection', 'networkType', 'router', 'vid', 'portType', 'gvrp', 'queueMem', 'nativeVid', 'persist',
];

type Spec = Partial<ZVswitchSpec>;

/** The interface's rules that involve more than one field (CEL in the CRD, the same check in validation). */
export const ZVSWITCH_RULES: CrossFieldRule<Spec>[] = [
  {
    path: '/spec/router',
    message: 'router PRIROUTER is not allowed when networkType is ETHERNET (the default)',
    cel: "!has(self.router) || self.router == 'NONROUTER' || (has(self.networkType) && self.networkType == 'IP')",
    holds: (s) => s.router === undefined || s.router === 'NONROUTER' || s.networkType === 'IP',
  },
  {
    path: '/spec/authorizedUsers',
    message: 'a user VLAN id is -1 or 1-4094',
    cel: '!has(self.authorizedUsers) || self.authorizedUsers.all(u, !has(u.vlanIds) || u.vlanIds.all(v, v != 0))',
    holds: (s) => (s.authorizedUsers ?? []).every((u) => (u.vlanIds ?? []).every((v) => v !== 0)),
  },
  {
    path: '/spec/authorizedUsers',
    message: 'each userid is authorized once',
    cel: '!has(self.authorizedUsers) || self.authorizedUsers.all(u, self.authorizedUsers.exists_one(w, w.userid == u.userid))',
    holds: (s) => new Set((s.authorizedUsers ?? []).map((u) => u.userid)).size === (s.authorizedUsers ?? []).length,
  },
];

const REDEFINE = 'a create parameter: z/VM would need the switch defined again, which cuts every coupled NIC';

/** ZVswitch: create parameters are fixed, authorized users converge (Virtual_Network_Vswitch_Set_Extended grant/revoke). */
export const ZVSWITCH_FIELDS: LifecycleTable = {
  ...Object.fromEntries(ZVSWITCH_IMMUTABLE.map((f) => [f, fixed(f === 'host' ? 'the switch lives on one host' : REDEFINE)])),
  authorizedUsers: live('users are granted and revoked on the switch (and in the system configuration when persist)'),
  'authorizedUsers[].userid': live('a user not listed any more is revoked, a new one granted'),
  'authorizedUsers[].vlanIds': live('the grant is set again with the new VLAN ids'),
};
