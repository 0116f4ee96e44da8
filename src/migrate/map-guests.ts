/**
 * feilong's guests and switch tables → ZGuests that adopt the existing z/VM guests (spec.adopt, the
 * register path: nothing is created). The sizes and power state come from the live directory, so
 * adopting changes nothing on the host; the NICs from the switch table, coupled as the directory shows.
 */
import { API_VERSION, type GuestNic, type ZGuest } from '../api/index.js';
import type { GuestState } from '../hypervisor/index.js';
import { computeAdoptedSpec } from '../rest/guests/adopt.js';
import type { FeilongData, FeilongGuestRow, FeilongSwitchRow } from './feilong-db.js';
import { isResourceName, migratedMetadata, type MigrationPlan, type Unmapped } from './model.js';

export interface GuestMapOptions {
  host: string;
  namespace: string;
  /** the live directory of each userid (undefined: not on the host); absent: no host was reachable */
  live?: ReadonlyMap<string, GuestState | undefined>;
  /** deletionPolicy Orphan: deleting the resource leaves the guest on the host (a trial period) */
  orphan?: boolean;
}

/** feilong hides guests whose comments say they were relocated away (`"migrated": 1`). */
export function isRelocatedAway(row: FeilongGuestRow): boolean {
  try {
    const c = row.comments ? (JSON.parse(row.comments) as { migrated?: unknown }) : {};
    return Number(c.migrated) === 1;
  } catch {
    // unparsable comments: feilong's own LIKE test on the text decides
    return /"migrated": 1/.test(row.comments ?? '');
  }
}

const vdevKey = (v: string) => v.toUpperCase().padStart(4, '0');

function mapNics(userid: string, rows: FeilongSwitchRow[], state: GuestState, unmapped: Unmapped[]): GuestNic[] {
  const directory = new Map(state.directory.nics.map((n) => [vdevKey(n.vdev), n]));
  const nics: GuestNic[] = [];
  for (const r of rows) {
    const source = `sdk_network.sqlite switch ${userid} ${r.interface}`;
    const osa = /^OSA=(\S+)/i.exec(r.comments ?? '');
    if (osa) {
      unmapped.push({ source, reason: `OSA ${osa[1].toUpperCase()} dedicated as NIC ${r.interface}: ZGuest NICs are virtual NICs; the dedication stays in the z/VM directory` });
      continue;
    }
    const have = directory.get(vdevKey(r.interface));
    if (!have) {
      unmapped.push({ source, reason: `NIC ${r.interface} is not in the z/VM directory of ${userid}` });
      continue;
    }
    const vswitch = have.vswitch?.toUpperCase();
    if ((r.switch ?? '').toUpperCase() !== (vswitch ?? '')) {
      unmapped.push({ source, reason: `feilong records vswitch ${r.switch ?? 'none'}, the directory couples ${vswitch ?? 'none'}: the directory's coupling is kept` });
    }
    nics.push({ vdev: vdevKey(r.interface), ...(vswitch ? { vswitch } : {}), ...(r.port ? { nicId: r.port } : {}) });
  }
  return nics;
}

/** Why a guest row cannot become a ZGuest, or its spec. */
function adoptedSpecOf(row: FeilongGuestRow, o: GuestMapOptions): { reason: string } | { spec: ZGuest['spec']; state: GuestState } {
  const userid = row.userid.toUpperCase();
  if (isRelocatedAway(row)) return { reason: 'relocated to another host by live migration ({"migrated": 1}); feilong hides it too: register it where it runs now' };
  if (!isResourceName(userid.toLowerCase())) return { reason: `userid ${userid} cannot be a resource name` };
  if (!o.live) return { reason: 'vcpus, memory and power state come from the z/VM directory, and no host was reachable (give --state-dir or --smapi)' };
  const state = o.live.get(userid);
  if (!state) return { reason: `not in the z/VM directory of host ${o.host}` };
  try {
    return { spec: computeAdoptedSpec(state, o.host), state };
  } catch (err) {
    return { reason: (err as Error).message };
  }
}

function mapGuest(row: FeilongGuestRow, switches: FeilongSwitchRow[], o: GuestMapOptions, unmapped: Unmapped[]) {
  const userid = row.userid.toUpperCase();
  const source = `sdk_guest.sqlite guests ${userid}`;
  const name = userid.toLowerCase();
  const mine = switches.filter((s) => s.userid.toUpperCase() === userid);
  const adopted = adoptedSpecOf(row, o);
  if ('reason' in adopted) {
    unmapped.push({ source, reason: adopted.reason });
    for (const s of mine) unmapped.push({ source: `sdk_network.sqlite switch ${userid} ${s.interface}`, reason: `its guest ${userid} is not migrated (above)` });
    return undefined;
  }
  const { spec, state } = adopted;
  const nics = mapNics(userid, mine, state, unmapped);
  const guest: ZGuest = {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: {
      name,
      namespace: o.namespace,
      ...migratedMetadata(source, { 'zvm.dev/feilong-metadata': row.metadata, 'zvm.dev/feilong-net-set': String(row.netSet) }),
    },
    spec: { ...spec, ...(nics.length > 0 ? { nics } : {}), ...(o.orphan ? { deletionPolicy: 'Orphan' as const } : {}) },
  };
  return { resource: guest, source };
}

export function mapGuests(data: FeilongData, o: GuestMapOptions): MigrationPlan {
  const plan: MigrationPlan = { items: [], unmapped: [] };
  for (const row of data.guests) {
    const item = mapGuest(row, data.switches, o, plan.unmapped);
    if (item) plan.items.push(item);
  }
  const known = new Set(data.guests.map((g) => g.userid.toUpperCase()));
  for (const s of data.switches) {
    if (!known.has(s.userid.toUpperCase())) plan.unmapped.push({ source: `sdk_network.sqlite switch ${s.userid} ${s.interface}`, reason: `guest ${s.userid} is not in the guests table` });
  }
  return plan;
}
