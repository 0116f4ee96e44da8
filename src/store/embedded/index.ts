export { createEmbeddedStore, DEFAULT_HISTORY_LIMIT, type EmbeddedStoreOptions } from './embedded-store.js';
