/**
 * Standalone's storage-version migration on the state database release 0.1.0 wrote
 * (test/fixtures/release-0.1.0/standalone/state.db): opened by this version, every object and change row
 * is at zvm.dev/v1beta1, nothing else of a row changed, schema 2 records it, and a second open rewrites
 * nothing. A release that knows schema 1 only refuses the file.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '../../../src/durable/index.js';
import { silentLogger } from '../../../src/log.js';
import { createSqliteStore } from '../../../src/store/index.js';
import { migrateStorageVersion } from '../../../src/store/sqlite/storage-version.js';
import { FIXTURE_DIR } from '../../e2e/upgrade/release.js';

interface Row { kind: string; name: string; resource_version: number; json: string }

let dir = '';
let path = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'zvm-storage-version-'));
  path = join(dir, 'state.db');
  copyFileSync(join(FIXTURE_DIR, 'standalone', 'state.db'), path);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function read(sql: string): unknown[] {
  const db = openSqliteFile(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}
const objects = () => read('SELECT kind, name, resource_version, json FROM objects ORDER BY kind, name') as Row[];
const changeVersions = () => (read('SELECT json FROM changes') as { json: string }[]).map((r) => (JSON.parse(r.json) as { apiVersion: string }).apiVersion);
const schema = () => (read("SELECT value FROM meta WHERE key = 'schema_version'") as { value: number }[])[0]?.value;
/** a row as it was, with the one field the migration changes set to what it should become */
const atBeta = (r: Row) => ({ ...r, json: JSON.stringify({ ...(JSON.parse(r.json) as object), apiVersion: 'zvm.dev/v1beta1' }) });

test('release 0.1.0 state opens with every row at v1beta1 and nothing else changed, once', async () => {
  const before = objects();
  expect(new Set(before.map((r) => (JSON.parse(r.json) as { apiVersion: string }).apiVersion))).toEqual(new Set(['zvm.dev/v1alpha1']));
  expect(schema()).toBe(1);
  const changesBefore = changeVersions().length;
  expect(changesBefore).toBeGreaterThan(0);

  const store = createSqliteStore({ path });
  const listed = [...(await store.list('ZGuest')).items, ...(await store.list('ZHost')).items, ...(await store.list('ZVswitch')).items];
  await store.close();

  expect(objects()).toEqual(before.map(atBeta));
  expect(listed).toHaveLength(before.length);
  expect(new Set(listed.map((o) => o.apiVersion))).toEqual(new Set(['zvm.dev/v1beta1']));
  expect(changeVersions()).toEqual(Array(changesBefore).fill('zvm.dev/v1beta1'));
  expect(schema()).toBe(2);

  const db = openSqliteFile(path);
  try {
    expect(migrateStorageVersion(db, silentLogger())).toBe(0);
  } finally {
    db.close();
  }
});

test('the migration is one transaction: a change row it cannot read leaves the object rows and the schema as they were', () => {
  const db = openSqliteFile(path);
  try {
    // the object rows come first: this makes the change rows fail after they were rewritten
    db.prepare('UPDATE changes SET json = substr(json, 2) WHERE rv = (SELECT MAX(rv) FROM changes)').run();
    const before = db.prepare('SELECT json FROM objects').all();
    expect(() => migrateStorageVersion(db, silentLogger())).toThrow();
    expect(db.prepare('SELECT json FROM objects').all()).toEqual(before);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual(expect.objectContaining({ value: 1 }));
  } finally {
    db.close();
  }
});

test('a JSON state file imported into a new database is stored at v1beta1 too', async () => {
  const json = join(dir, 'store.json');
  const guest = JSON.parse((read("SELECT json FROM objects WHERE kind = 'ZGuest' LIMIT 1") as { json: string }[])[0]!.json) as object;
  writeFileSync(json, JSON.stringify({ version: 1, resourceVersion: 100, objects: [guest] }));
  const store = createSqliteStore({ path: join(dir, 'fresh.db'), migrateFrom: json });
  try {
    expect((await store.list('ZGuest')).items.map((o) => o.apiVersion)).toEqual(['zvm.dev/v1beta1']);
  } finally {
    await store.close();
  }
});
