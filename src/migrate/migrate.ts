/** One migration: read the databases, ask the host for the live directory, map everything to resources. */
import type { GuestState, Hypervisor } from '../hypervisor/index.js';
import { readFeilongDatabases, type FeilongData } from './feilong-db.js';
import { mapFcpTemplates } from './map-fcp.js';
import { isRelocatedAway, mapGuests } from './map-guests.js';
import { mapImages } from './map-images.js';
import type { MigrationPlan } from './model.js';

export interface MigrationOptions {
  dbDir: string;
  /** the ZHost the resources belong to */
  host: string;
  namespace: string;
  /** the host, when reachable: the live directory fills the guests' specs */
  hypervisor?: Hypervisor;
  /** image repository root on the management guest */
  repository?: string;
  rootVdev?: string;
  orphan?: boolean;
  now?: Date;
}

export interface Migration extends MigrationPlan {
  data: FeilongData;
  hostReachable: boolean;
}

async function liveDirectory(data: FeilongData, hv: Hypervisor): Promise<Map<string, GuestState | undefined>> {
  const live = new Map<string, GuestState | undefined>();
  for (const row of data.guests) {
    if (isRelocatedAway(row)) continue;
    const userid = row.userid.toUpperCase();
    live.set(userid, await hv.describeGuest(userid));
  }
  return live;
}

export async function computeMigration(o: MigrationOptions): Promise<Migration> {
  const data = readFeilongDatabases(o.dbDir);
  const now = (o.now ?? new Date()).toISOString();
  const live = o.hypervisor ? await liveDirectory(data, o.hypervisor) : undefined;
  const parts = [
    mapGuests(data, { host: o.host, namespace: o.namespace, live, orphan: o.orphan }),
    mapImages(data.images, { host: o.host, repository: o.repository ?? '/var/lib/zvmsdk/images', rootVdev: o.rootVdev ?? '0100', now }),
    mapFcpTemplates(data, { host: o.host, now }),
  ];
  return {
    data,
    hostReachable: live !== undefined,
    items: parts.flatMap((p) => p.items),
    unmapped: [...data.missing.map((m) => ({ source: m.split(':')[0], reason: m.slice(m.indexOf(':') + 2) })), ...parts.flatMap((p) => p.unmapped)],
  };
}
