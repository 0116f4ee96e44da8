/**
 * Reads the four SQLite files of a feilong installation (its `[database] dir`), read-only: the file
 * is opened with SQLite's read-only flag and must exist, so nothing is ever created or written.
 * Columns are looked up by name (PRAGMA table_info), because hosts upgraded in place keep the
 * table layout they were first created with; a missing file or table is reported, not guessed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { sqliteDriver } from '../durable/index.js';

export interface FeilongGuestRow { userid: string; metadata: string; netSet: number; comments: string | null }
export interface FeilongSwitchRow { userid: string; interface: string; switch: string | null; port: string | null; comments: string | null }
export interface FeilongImageRow {
  imagename: string; imageosdistro: string; md5sum: string; diskSizeUnits: string;
  imageSizeInBytes: string; type: string; comments: string | null;
}
export interface FeilongFcpRow {
  fcpId: string; assignerId: string; connections: number; reserved: number; wwpnNpiv: string; wwpnPhy: string;
  chpid: string; pchid: string; state: string; owner: string; tmplId: string;
}
export interface FeilongTemplateRow { id: string; name: string; description: string; isDefault: boolean; minFcpPathsCount: number }
export interface FeilongTemplateDevice { fcpId: string; tmplId: string; path: number }

export interface FeilongData {
  guests: FeilongGuestRow[];
  switches: FeilongSwitchRow[];
  images: FeilongImageRow[];
  fcps: FeilongFcpRow[];
  templates: FeilongTemplateRow[];
  /** storage provider → template id */
  spDefaults: { spName: string; tmplId: string }[];
  templateDevices: FeilongTemplateDevice[];
  /** files or tables that are absent (a host that never used the feature), one line each */
  missing: string[];
}

export const FEILONG_FILES = { guest: 'sdk_guest.sqlite', network: 'sdk_network.sqlite', image: 'sdk_image.sqlite', fcp: 'sdk_fcp.sqlite' } as const;

type Row = Record<string, unknown>;
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const nullableText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const int = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));

/** Rows of a table in rowid order (the order feilong's own unordered SELECTs return), or undefined when absent. */
function readTable(db: DatabaseSync, table: string): { columns: Set<string>; rows: Row[] } | undefined {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[];
  if (columns.length === 0) return undefined;
  // the table name is one of our constants, never input
  const rows = db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() as Row[];
  return { columns: new Set(columns.map((c) => c.name)), rows };
}

function withDb<T>(dir: string, file: string, missing: string[], read: (db: DatabaseSync) => T, empty: T): T {
  const path = join(dir, file);
  if (!existsSync(path)) {
    missing.push(`${file}: not present in ${dir} (feilong creates it on first use; nothing of it to migrate)`);
    return empty;
  }
  const db = new (sqliteDriver().DatabaseSync)(path, { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function tableRows(db: DatabaseSync, file: string, table: string, missing: string[]): Row[] {
  const t = readTable(db, table);
  if (!t) missing.push(`${file}: table ${table} is absent`);
  return t?.rows ?? [];
}

/** Everything a migration needs from the databases in `dir`. */
export function readFeilongDatabases(dir: string): FeilongData {
  const missing: string[] = [];
  const guests = withDb(dir, FEILONG_FILES.guest, missing, (db) => tableRows(db, FEILONG_FILES.guest, 'guests', missing).map((r) => ({
    userid: text(r.userid), metadata: text(r.metadata), netSet: int(r.net_set), comments: nullableText(r.comments),
  })), [] as FeilongGuestRow[]);
  const switches = withDb(dir, FEILONG_FILES.network, missing, (db) => tableRows(db, FEILONG_FILES.network, 'switch', missing).map((r) => ({
    userid: text(r.userid), interface: text(r.interface), switch: nullableText(r.switch), port: nullableText(r.port), comments: nullableText(r.comments),
  })), [] as FeilongSwitchRow[]);
  const images = withDb(dir, FEILONG_FILES.image, missing, (db) => tableRows(db, FEILONG_FILES.image, 'image', missing).map((r) => ({
    imagename: text(r.imagename), imageosdistro: text(r.imageosdistro), md5sum: text(r.md5sum), diskSizeUnits: text(r.disk_size_units),
    imageSizeInBytes: text(r.image_size_in_bytes), type: text(r.type), comments: nullableText(r.comments),
  })), [] as FeilongImageRow[]);
  const fcpPart = withDb(dir, FEILONG_FILES.fcp, missing, (db) => readFcp(db, missing), { fcps: [], templates: [], spDefaults: [], templateDevices: [] });
  return { guests, switches, images, ...fcpPart, missing };
}

function readFcp(db: DatabaseSync, missing: string[]) {
  const file = FEILONG_FILES.fcp;
  const fcps = tableRows(db, file, 'fcp', missing).map((r): FeilongFcpRow => ({
    fcpId: text(r.fcp_id).toLowerCase(), assignerId: text(r.assigner_id).toUpperCase(), connections: int(r.connections), reserved: int(r.reserved),
    wwpnNpiv: text(r.wwpn_npiv).toLowerCase(), wwpnPhy: text(r.wwpn_phy).toLowerCase(), chpid: text(r.chpid).toLowerCase(), pchid: text(r.pchid),
    state: text(r.state).toLowerCase(), owner: text(r.owner).toLowerCase(), tmplId: text(r.tmpl_id),
  }));
  // releases before 2022-05 have no template tables: their FCP rows then belong to no template
  const hasTemplates = readTable(db, 'template') !== undefined;
  const templates = hasTemplates ? tableRows(db, file, 'template', missing).map((r): FeilongTemplateRow => ({
    id: text(r.id), name: text(r.name), description: text(r.description), isDefault: int(r.is_default) !== 0,
    // absent before 2022-07: every path was needed, feilong's -1
    minFcpPathsCount: r.min_fcp_paths_count === undefined ? -1 : int(r.min_fcp_paths_count),
  })) : [];
  if (!hasTemplates) missing.push(`${file}: table template is absent (a release before 2022-05)`);
  const spDefaults = hasTemplates ? tableRows(db, file, 'template_sp_mapping', missing).map((r) => ({ spName: text(r.sp_name), tmplId: text(r.tmpl_id) })) : [];
  const templateDevices = hasTemplates ? tableRows(db, file, 'template_fcp_mapping', missing).map((r): FeilongTemplateDevice => ({
    fcpId: text(r.fcp_id).toLowerCase(), tmplId: text(r.tmpl_id), path: int(r.path),
  })) : [];
  return { fcps, templates, spDefaults, templateDevices };
}
