/** The two standalone state backends side by side: the old JSON file and the SQLite database. */
import { join } from 'node:path';
import type { Logger } from '../../src/log.js';
import { createEmbeddedStore, createSqliteStore, type StateStore } from '../../src/store/index.js';

export type Backend = 'json' | 'sqlite';
export const BACKENDS: Backend[] = ['json', 'sqlite'];

/** Files of a backend in a state directory; `store.json` is also what the SQLite store imports once. */
export const stateFiles = (stateDir: string) => ({ json: join(stateDir, 'store.json'), sqlite: join(stateDir, 'state.db') });

export function openBackend(backend: Backend, stateDir: string, log?: Logger): StateStore {
  const files = stateFiles(stateDir);
  return backend === 'json' ? createEmbeddedStore({ path: files.json, log }) : createSqliteStore({ path: files.sqlite, migrateFrom: files.json, log });
}

/** Imports a seeded store.json into state.db ahead of the measured start (which then is an ordinary one). */
export async function prepareBackend(backend: Backend, stateDir: string): Promise<number> {
  if (backend === 'json') return 0;
  const t0 = performance.now();
  await openBackend(backend, stateDir).close();
  return (performance.now() - t0) / 1000;
}
