export { createSqliteStore, DEFAULT_SQLITE_HISTORY, type SqliteStoreOptions } from './sqlite-store.js';
export { migratedPath } from './migrate-json.js';
