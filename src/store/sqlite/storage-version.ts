/**
 * Standalone's storage-version migration (what the apiserver's is in a cluster, docs/user-guide/upgrade.md):
 * object and change rows that an older release stored at a deprecated served version (0.1.0:
 * zvm.dev/v1alpha1) are rewritten at the storage version, in one transaction, and schema 2 records that
 * it happened. Nothing else of a row changes: not its resourceVersion, so no watch sees a change and no
 * controller acts on it.
 */
import { API_VERSION, DEPRECATED_VERSION, GROUP } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { getMeta, META, setMeta, type Db } from './database.js';

/** The schema whose rows are all at the storage version. */
export const STORAGE_VERSION_SCHEMA = 2;
const DEPRECATED_API_VERSION = `${GROUP}/${DEPRECATED_VERSION}`;

/**
 * Runs once per database (schema 1 to 2), and again after a JSON import (`imported`: the embedded store's
 * file may hold the old version). Returns how many object rows it rewrote.
 */
export function migrateStorageVersion(db: Db, log: Logger, imported = false): number {
  if (!imported && (getMeta(db, META.schemaVersion) ?? 0) >= STORAGE_VERSION_SCHEMA) return 0;
  const objects = db.transaction(() => {
    const rewritten = rewrite(db, 'objects');
    rewrite(db, 'changes');
    setMeta(db, META.schemaVersion, STORAGE_VERSION_SCHEMA);
    return rewritten;
  });
  if (objects > 0) log.info({ objects, from: DEPRECATED_API_VERSION, to: API_VERSION }, 'stored objects moved to the storage version');
  return objects;
}

/** The table's rows at the deprecated version, parsed and written back at API_VERSION (same JSON writer as the store). */
function rewrite(db: Db, table: 'objects' | 'changes'): number {
  const rows = db.prepare(`SELECT rowid AS id, json FROM ${table} WHERE json_extract(json, '$.apiVersion') = ?`).all(DEPRECATED_API_VERSION) as { id: number; json: string }[];
  const update = db.prepare(`UPDATE ${table} SET json = ? WHERE rowid = ?`);
  for (const row of rows) update.run(JSON.stringify({ ...(JSON.parse(row.json) as object), apiVersion: API_VERSION }), row.id);
  return rows.length;
}
