/** guests HOST: what the host itself reports beside the ZGuests that claim its userids. */
import { hostOf, type ZGuest } from '../../api/index.js';
import { markUidOf } from '../../controllers/index.js';
import type { HostGuest } from '../host-guests.js';
import { connectedTo } from './run.js';
import type { GlobalOptions } from './connect.js';

/** Pure: one row per userid the host knows or a ZGuest claims. */
export function computeHostRows(host: string, reported: HostGuest[], guests: ZGuest[]): string[][] {
  const claims = new Map<string, ZGuest>();
  for (const g of guests) if (hostOf(g) === host) claims.set(g.spec.userid.toUpperCase(), g);
  const userids = [...new Set([...reported.map((r) => r.userid), ...claims.keys()])].sort();
  const byUserid = new Map(reported.map((r) => [r.userid, r]));
  return userids.map((userid) => {
    const r = byUserid.get(userid);
    const g = claims.get(userid);
    const mark = r?.ownerUid ? (g && markUidOf(g) === r.ownerUid ? 'ours' : `ours (uid ${r.ownerUid.toLowerCase()}, no ZGuest)`) : '';
    return [
      userid,
      r ? (r.defined ? 'yes' : 'no') : 'no',
      r?.power ?? '-',
      mark || (r?.defined ? 'none' : '-'),
      g ? `${g.metadata.namespace ?? 'default'}/${g.metadata.name}` : '',
    ];
  });
}

export function formatTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  return [header, ...rows].map((row) => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('   ').trimEnd());
}

export async function runHostGuests(host: string, opts: GlobalOptions): Promise<void> {
  await connectedTo(opts, async (b, out) => {
    if (!(await b.store.get('ZHost', { name: host }))) throw new Error(`zhost "${host}" not found`);
    const [reported, guests] = await Promise.all([b.live.hostGuests(host), b.store.list<ZGuest>('ZGuest', opts.allNamespaces ? {} : { namespace: b.namespace })]);
    for (const line of formatTable(['USERID', 'IN DIRECTORY', 'POWER', 'OWNER MARK', 'ZGUEST'], computeHostRows(host, reported, guests.items))) out(line);
  });
}
