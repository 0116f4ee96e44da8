/**
 * The same conversion round trip through standalone (issue 37): its admin API over HTTP on a SQLite
 * store, as `zvm-operator apply/get` use it. Each kind's objects with every spec field set are applied
 * at v1alpha1, read at v1beta1 (`/resources/<plural>.v1beta1.zvm.dev`), applied back at v1beta1 and read
 * at v1alpha1, the spec whole each time. No controllers run here: the objects name hosts, images and
 * URLs that exist nowhere, and only the API's handling of versions is under test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { KINDS, type Resource } from '../../../src/api/index.js';
import { createAdminServer } from '../../../src/cmd/admin-server.js';
import { silentLogger } from '../../../src/log.js';
import { createSqliteStore } from '../../../src/store/index.js';
import type { StateStore } from '../../../src/store/port.js';
import { everyFieldObjects, everyFieldSpecs, unsetPaths } from './every-field.js';

const ours = Object.values(KINDS).filter((d) => !d.version);
let dir = '';
let store: StateStore;
let app: FastifyInstance;
let base = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zvm-round-trip-'));
  store = createSqliteStore({ path: join(dir, 'state.db') });
  app = createAdminServer({ store, registry: new Registry(), log: silentLogger(), isReady: () => true });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  const payload = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(payload)}`);
  return payload;
}

test.each(ours.map((d) => [d.kind, d] as const))('the generated %s objects set every field of its spec', (_kind, def) => {
  expect(unsetPaths(def, everyFieldSpecs(def, 'zvm.dev/v1alpha1'))).toEqual([]);
});

test.each(ours.map((d) => [d.kind, d] as const))('%s: applied at v1alpha1, read at v1beta1, applied at v1beta1, read at v1alpha1, every field kept', async (_kind, def) => {
  const read = async (version: string, o: Resource) =>
    (await call('GET', `/resources/${def.plural}.${version}.zvm.dev/${o.metadata.name}${o.metadata.namespace ? `?namespace=${o.metadata.namespace}` : ''}`)) as Resource;
  for (const obj of everyFieldObjects(def, 'zvm.dev/v1alpha1', 'default')) {
    await call('POST', '/apply', obj);
    const beta = await read('v1beta1', obj);
    expect([beta.apiVersion, beta.spec]).toEqual(['zvm.dev/v1beta1', obj.spec]);
    // applied back as read, with a label that shows the write happened
    const { name, namespace } = beta.metadata;
    await call('POST', '/apply', { apiVersion: beta.apiVersion, kind: beta.kind, metadata: { name, namespace, labels: { written: 'v1beta1' } }, spec: beta.spec });
    const alpha = await read('v1alpha1', obj);
    expect([alpha.apiVersion, alpha.spec, alpha.metadata.labels]).toEqual(['zvm.dev/v1alpha1', obj.spec, { written: 'v1beta1' }]);
    expect((await store.get(def.kind, { name, namespace }))?.apiVersion).toBe('zvm.dev/v1beta1');
  }
});
