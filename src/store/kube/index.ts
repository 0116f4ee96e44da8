/** The StateStore adapter over a real kube-apiserver (docs/architecture.md §2, §5). */
export { createKubeStore, type KubeStoreOptions } from './kube-store.js';
export { fieldToPointer, toStoreError } from './kube-errors.js';
export { migrateStoredVersions, type MigratedCrd } from './storage-version.js';
