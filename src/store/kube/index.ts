/** The StateStore adapter over a real kube-apiserver (DESIGN.md §2, §5). */
export { createKubeStore, type KubeStoreOptions } from './kube-store.js';
export { fieldToPointer, toStoreError } from './kube-errors.js';
