/** Crash-safe state files and the group commit that writes them: what the embedded store and the simulated host share. */
export { damagedStateAdvice, damagedStateError, loadJsonState, writeFileDurably } from './atomic-file.js';
export { createGroupCommit, type GroupCommit, type GroupCommitDeps } from './group-commit.js';
export { openSqliteFile, wrapSqlite, type PluckedStatement, type SqliteDb, type SqliteOpenOptions } from './sqlite-file.js';
export { assertNodeHasSqlite, MIN_NODE_FOR_SQLITE, sqliteDriver } from './sqlite-driver.js';
