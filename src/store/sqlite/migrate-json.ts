/**
 * One-time import of the embedded store's JSON file into a new database. The import is one transaction
 * that also records that it happened; only then is the old file renamed `<file>.migrated` (kept for the
 * user, never read again). A crash between the two finishes the rename at the next start instead of
 * importing twice.
 */
import { existsSync, renameSync } from 'node:fs';
import { ZvmError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { loadStateFile } from '../embedded/state-file.js';
import { getMeta, META, setMeta, type Db } from './database.js';
import { objectWrites } from './tables.js';

export interface MigrateDeps {
  db: Db;
  jsonPath: string;
  log: Logger;
}

export function migratedPath(jsonPath: string): string {
  return `${jsonPath}.migrated`;
}

/** Imports `jsonPath` once; returns how many objects it imported (0 when there was nothing to do). */
export function migrateJsonStore({ db, jsonPath, log }: MigrateDeps): number {
  if (!existsSync(jsonPath)) return 0;
  if (getMeta(db, META.migratedJson) === 1) {
    renameSync(jsonPath, migratedPath(jsonPath));
    log.warn({ file: jsonPath }, 'finished an interrupted migration: the imported JSON state file is now .migrated');
    return 0;
  }
  const count = db.pluck('SELECT COUNT(*) FROM objects').get() as number;
  if (count > 0) {
    throw new ZvmError('INTERNAL', `both ${jsonPath} and a state database holding ${count} objects exist; move one of them away before starting`);
  }
  const snapshot = loadStateFile(jsonPath, log);
  if (!snapshot) return 0;
  const rows = objectWrites(db);
  let rv = snapshot.resourceVersion;
  db.transaction(() => {
    for (const obj of snapshot.objects) {
      rows.upsert(obj, JSON.stringify(obj));
      rv = Math.max(rv, Number(obj.metadata.resourceVersion) || 0);
    }
    // no change rows come with the import: watches from before it re-list (410 Gone)
    setMeta(db, META.compactedRv, rv);
    setMeta(db, META.migratedJson, 1);
  });
  renameSync(jsonPath, migratedPath(jsonPath));
  log.info({ objects: snapshot.objects.length, resourceVersion: rv, from: jsonPath }, 'imported the JSON state file into the state database');
  return snapshot.objects.length;
}
