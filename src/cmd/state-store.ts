/**
 * Standalone mode's state store: SQLite (`<state-dir>/state.db`) by default, importing an existing
 * `<state-dir>/store.json` once and keeping it as `store.json.migrated`; `--store json` keeps the old
 * file store (the whole state in one JSON file, rewritten on every batch of changes).
 */
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { createEmbeddedStore, createSqliteStore, type StateStore } from '../store/index.js';

export type StateStoreKind = 'sqlite' | 'json';

export const STATE_DB_FILE = 'state.db';
export const STATE_JSON_FILE = 'store.json';

export function openStateStore(stateDir: string, kind: StateStoreKind = 'sqlite', log?: Logger): StateStore {
  const json = join(stateDir, STATE_JSON_FILE);
  if (kind === 'json') return createEmbeddedStore({ path: json, log });
  return createSqliteStore({ path: join(stateDir, STATE_DB_FILE), migrateFrom: json, log });
}
