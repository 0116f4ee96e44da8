/** Crash-safe state files and the group commit that writes them: what the embedded store and the simulated host share. */
export { damagedStateAdvice, damagedStateError, loadJsonState, writeFileDurably } from './atomic-file.js';
export { createGroupCommit, type GroupCommit, type GroupCommitDeps } from './group-commit.js';
