/** The store module's public surface: the StateStore port and its adapters. */
export * from './port.js';
export { createEmbeddedStore, DEFAULT_HISTORY_LIMIT, type EmbeddedStoreOptions } from './embedded/index.js';
export { createSqliteStore, DEFAULT_SQLITE_HISTORY, migratedPath, type SqliteStoreOptions } from './sqlite/index.js';
