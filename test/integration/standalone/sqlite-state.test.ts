import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { openSqliteFile } from '../../../src/durable/index.js';
import { createEmbeddedStore } from '../../../src/store/index.js';
import { startTestStandalone, tempStateDir } from './helpers.js';

const aGuest = (name: string): ZGuest => ({
  apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid: name.toUpperCase(), vcpus: 1, memory: '1G' },
});

describe('standalone mode: the SQLite state database', () => {
  it('keeps its state in state.db, which the sqlite3 tooling can read while it runs', async () => {
    const state = tempStateDir();
    const app = await startTestStandalone(state.dir);
    try {
      const created = await app.store.create(aGuest('sql01'));
      const db = openSqliteFile(join(state.dir, 'state.db'), { readonly: true });
      const row = db.prepare("SELECT uid, resource_version AS rv FROM objects WHERE kind = 'ZGuest' AND name = 'sql01'").get() as { uid: string; rv: number };
      db.close();
      expect(row.uid).toBe(created.metadata.uid);
      expect(row.rv).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
      expect(existsSync(join(state.dir, 'store.json'))).toBe(false);
    } finally {
      await app.stop();
      state.cleanup();
    }
  });

  it('imports an existing store.json on its first start, keeps it as .migrated, and never again', async () => {
    const state = tempStateDir();
    const old = createEmbeddedStore({ path: join(state.dir, 'store.json') });
    const before = await old.create(aGuest('old01'));
    await old.close();

    let app = await startTestStandalone(state.dir);
    try {
      expect((await app.store.get<ZGuest>('ZGuest', before.metadata))?.metadata.uid).toBe(before.metadata.uid);
      expect(existsSync(join(state.dir, 'store.json'))).toBe(false);
      expect(existsSync(join(state.dir, 'store.json.migrated'))).toBe(true);
      await app.store.delete('ZGuest', before.metadata);
      await app.stop();
      // a second start must not bring the deleted guest back from the kept file
      app = await startTestStandalone(state.dir);
      const gone = await app.store.get<ZGuest>('ZGuest', before.metadata);
      expect(gone === undefined || gone.metadata.deletionTimestamp !== undefined).toBe(true);
    } finally {
      await app.stop();
      state.cleanup();
    }
  });
});
