import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, resourceSchema, type Resource } from './common.js';
import { DEFAULT_HOST } from './host.js';
import type { CrossFieldRule } from './kinds.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

const HEX4 = '[0-9A-Fa-f]{4}';
const ITEM = `${HEX4}( *- *${HEX4})?`;
const PATH = `${ITEM}( *, *${ITEM})*`;

/**
 * FCP devices of a template (docs/rest-interface.md §1.3 #13): `;` separates paths, `,` items of one path,
 * `-` an inclusive range; every device is exactly 4 hex digits; blanks around separators are allowed.
 * E.g. `1a00-1a03;1b00-1b03` or `0011-0013;0015;0017-0018`.
 */
export const FCP_DEVICES_PATTERN = `^ *(${PATH}( *; *${PATH})*)? *$`;

/** Why an fcp_devices text is not acceptable, or undefined when it is. */
export function fcpDevicesProblem(text: string): string | undefined {
  if (!new RegExp(FCP_DEVICES_PATTERN).test(text)) {
    return `fcp_devices ${JSON.stringify(text)} is not like 1a00-1a03;1b00-1b03 (4 hex digits per device)`;
  }
  const seen = new Set<string>();
  for (const path of splitPaths(text)) {
    for (const item of path.split(',')) {
      const [from, to = from] = item.split('-').map((s) => parseInt(s.trim(), 16));
      if (from > to) return `FCP range ${item.trim()} is not ascending`;
      for (let n = from; n <= to; n++) {
        const fcp = hex4(n);
        if (seen.has(fcp)) return `FCP ${fcp} is listed twice`;
        seen.add(fcp);
      }
    }
  }
  return undefined;
}

function splitPaths(text: string): string[] {
  return text.trim() === '' ? [] : text.split(';');
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** The devices of each path, lower case, ascending; the text must pass fcpDevicesProblem first. */
export function expandFcpDevices(text: string): string[][] {
  return splitPaths(text).map((path) =>
    path.split(',').flatMap((item) => {
      const [from, to = from] = item.split('-').map((s) => parseInt(s.trim(), 16));
      return Array.from({ length: to - from + 1 }, (_, i) => hex4(from + i));
    }),
  );
}

/**
 * The usage of one FCP as the REST interface last declared it (get_volume_connector's reserve and
 * release, set_fcp_usage): the ledger row's assigner, reservation and connection count at that moment,
 * with the volumes that count included. Volume connections made or given back since count on top
 * (ZVolume status.connections), so the ZFcpTemplate reconciler derives each row from this and the volumes.
 */
export const FcpDeclaredUsage = Type.Object({
  fcp: Type.String({ pattern: '^[0-9a-f]{4}$', description: 'FCP device number, 4 lower-case hex digits' }),
  assignerId: Type.String({ maxLength: 8, description: 'the guest the FCP is allocated to, "" when none' }),
  reserved: Type.Integer({ minimum: 0, maximum: 1, description: '1 when reserved for the guest' }),
  connections: Type.Integer({ minimum: 0, description: 'connections the FCP had when this was declared' }),
  volumes: Type.Optional(Type.Array(Type.String(), { description: 'ZVolumes (namespace/name) those connections include' })),
  templateId: Type.Optional(Type.String({ description: 'the template the FCP was allocated from (feilong\'s fcp.tmpl_id), when another one' })),
}, { additionalProperties: false, description: 'one FCP\'s declared usage' });
export type FcpDeclaredUsage = Static<typeof FcpDeclaredUsage>;

export const ZFcpTemplateSpec = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'display name; metadata.name is the template id' }),
    description: Type.Optional(Type.String({ maxLength: 255, default: '', description: 'free text about the template' })),
    fcpDevices: Type.Optional(Type.String({ pattern: FCP_DEVICES_PATTERN, maxLength: 4096, default: '', description: "paths separated by ';', ranges with '-', e.g. 1a00-1a03;1b00-1b03" })),
    hostDefault: Type.Optional(Type.Boolean({ default: false, description: 'the default template of the host' })),
    storageProviders: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { description: 'storage providers this template is the default for' })),
    minFcpPathsCount: Type.Optional(Type.Integer({ minimum: 1, description: 'fewest paths a volume connection needs; default all paths' })),
    host: Type.Optional(Type.String({ default: DEFAULT_HOST, description: 'name of the ZHost' })),
    fcpUsage: Type.Optional(Type.Array(FcpDeclaredUsage, { description: 'FCP reservations and usage declared through the REST interface; the ledger in status derives from them and the volumes' })),
  },
  { additionalProperties: false, description: 'a set of FCP devices volumes are attached through, one group per path' },
);
export type ZFcpTemplateSpec = Static<typeof ZFcpTemplateSpec>;

/** One FCP device of the template with its usage (feilong's FCP DB row, §4.4). */
export const FcpUsage = Type.Object({
  fcp: Type.String({ description: 'FCP device number' }),
  path: Type.Integer({ description: 'path index, from 0' }),
  assignerId: Type.String({ description: 'the guest the FCP is allocated to, "" when free' }),
  reserved: Type.Integer({ minimum: 0, maximum: 1, description: '1 when reserved for a guest' }),
  connections: Type.Integer({ minimum: 0, description: 'volume connections using the FCP' }),
  wwpnNpiv: Type.String({ description: 'NPIV WWPN of the FCP' }),
  wwpnPhy: Type.String({ description: 'physical WWPN of the FCP' }),
  chpid: Type.String({ description: 'channel path id' }),
  pchid: Type.Optional(Type.String({ description: 'physical channel id of the channel path, as CP reports it ("" or absent: unknown)' })),
  state: Type.String({ description: 'active, free, offline, or notfound when the host does not report it' }),
  owner: Type.String({ description: 'the guest z/VM reports as owner, "" when none' }),
  volumes: Type.Optional(Type.Array(Type.String(), { description: 'ZVolumes (namespace/name) counted in connections' })),
  templateId: Type.Optional(Type.String({ description: 'the template the FCP was allocated from (feilong\'s fcp.tmpl_id), "" when none; absent: this template while allocated' })),
});
export type FcpUsage = Static<typeof FcpUsage>;

export const ZFcpTemplateStatus = Type.Object({
  ...CommonStatusFields,
  fcps: Type.Optional(Type.Array(FcpUsage, { description: 'every FCP device of the template with its usage' })),
  pathCount: Type.Optional(Type.Integer({ description: 'number of paths' })),
  lastSyncTime: Type.Optional(Type.String({ description: 'when the FCP usage was last read from the host' })),
}, { description: 'the template and its FCP usage as the host reports it' });
export type ZFcpTemplateStatus = Static<typeof ZFcpTemplateStatus>;

export const ZFcpTemplateSchema = resourceSchema('ZFcpTemplate', ZFcpTemplateSpec, ZFcpTemplateStatus);
export type ZFcpTemplate = Resource<ZFcpTemplateSpec, ZFcpTemplateStatus>;

const ascendingRanges =
  "self.fcpDevices.split(';').all(p, p.split(',').all(r, !r.contains('-') || r.split('-')[0].trim().lowerAscii() <= r.split('-')[1].trim().lowerAscii()))";

/** What the pattern cannot say: ranges ascend (CEL), and no device is listed twice (validateResource). */
export const ZFCP_TEMPLATE_RULES: CrossFieldRule<ZFcpTemplateSpec>[] = [
  {
    path: '/spec/fcpDevices',
    message: 'FCP ranges must be ascending and list each device once',
    cel: `!has(self.fcpDevices) || ${ascendingRanges}`,
    holds: (s) => fcpDevicesProblem(s.fcpDevices ?? '') === undefined,
  },
];

/** ZFcpTemplate: the template's devices and choices converge into its FCP ledger and the next allocation (docs/fields.md). */
export const ZFCP_TEMPLATE_FIELDS: LifecycleTable = {
  name: live('shown by GET /fcp_templates at once'),
  description: live('shown by GET /fcp_templates at once'),
  fcpDevices: live('the FCP ledger in status is built again: new devices are free, removed ones leave unless in use'),
  hostDefault: live('read by the next volume attach that names no template'),
  storageProviders: live('read by the next volume attach that names a storage provider'),
  minFcpPathsCount: live('read by the next volume attach'),
  host: fixed('the template\'s devices belong to one host'),
  fcpUsage: live('the FCP ledger in status is derived again from it and the volumes\' connections', true),
};
