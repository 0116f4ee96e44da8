/**
 * One row per kind (docs/architecture.md §7.2, "Adding a kind"): every per-kind fact is reachable from
 * the kind's definition (api/kinds.ts) or its controller row (controllers/registry.ts), and these
 * agree. A kind added without one of them fails here (or does not type-check: the row's facts are
 * required fields of KindDefinition).
 */
import { API_VERSION, KINDS, type KindDefinition, type Resource } from '../../../src/api/index.js';
import { controllerRows } from '../../../src/controllers/registry.js';
import { DEPENDENT_KINDS } from '../../../src/controllers/zhost/deletion.js';
import { computeFailure } from '../../../src/rest/write-and-wait.js';
import { CAPI_SHARDED_KINDS, hostOf, SHARDED_KINDS } from '../../../src/runtime/sharding/labeler.js';
import { createEmbeddedStore } from '../../../src/store/index.js';

const defs = Object.values(KINDS);
/** every row, the Cluster API provider's (--capi) included */
const ROWS = controllerRows(true);
const rowsOf = (kind: string) => ROWS.filter((r) => r.kind === kind);
const named = (pred: (d: KindDefinition) => boolean) => defs.filter(pred).map((d) => d.kind).sort();

describe('one row per kind', () => {
  it.each(defs.map((d) => [d.kind, d] as const))('%s: a controller row exactly when its definition says it has one', (_kind, def) => {
    expect(rowsOf(def.kind)).toHaveLength(def.controller === 'own' ? 1 : 0);
  });

  it('every controller row reconciles a declared kind', () => {
    expect(ROWS.filter((r) => !KINDS[r.kind]).map((r) => r.kind)).toEqual([]);
  });

  it('every reconciled kind has a host, so a sharded replica (which selects on the host label) sees it, or its row runs it where no host is selected', () => {
    // a host-less kind's row is marked so, and runs in the unassigned layout (one replica holds its Lease)
    expect(named((d) => d.controller === 'own' && d.host === 'none')).toEqual(ROWS.filter((r) => r.hostless).map((r) => r.kind).sort());
    expect(ROWS.filter((r) => r.hostless && !r.unassigned).map((r) => r.kind)).toEqual([]);
    expect(ROWS.filter((r) => r.hostless && KINDS[r.kind]?.host !== 'none').map((r) => r.kind)).toEqual([]);
    expect([...SHARDED_KINDS, ...CAPI_SHARDED_KINDS].sort()).toEqual(named((d) => d.host !== 'none'));
  });

  it('the labeler finds the host of an object of every sharded kind as its row says', async () => {
    const store = createEmbeddedStore();
    await store.create({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'g1', namespace: 'default' }, spec: { userid: 'G1', host: 'h1', vcpus: 1, memory: '1G' } } as Resource);
    const specOf: Record<KindDefinition['host'], Record<string, unknown>> = { self: {}, spec: { host: 'h1' }, firstPoolHost: { hosts: ['h1'] }, guest: { guest: 'g1' }, machine: { host: 'h1' }, none: {} };
    const found = await Promise.all(defs.filter((d) => d.host !== 'none').map(async (d) => {
      const name = d.host === 'self' ? 'h1' : 'x';
      const obj = { apiVersion: API_VERSION, kind: d.kind, metadata: { name, ...(d.scope === 'Namespaced' ? { namespace: 'default' } : {}) }, spec: specOf[d.host] } as Resource;
      return [d.kind, await hostOf(obj, store)];
    }));
    expect(found.filter(([, host]) => host !== 'h1')).toEqual([]);
    await store.close();
  });

  it('a ZHost\'s deletion waits for exactly the kinds whose rows hold it, all of them placed on a host', () => {
    expect([...DEPENDENT_KINDS].sort()).toEqual(named((d) => d.holdsHostDeletion));
    expect(named((d) => d.holdsHostDeletion && d.host === 'none')).toEqual([]);
  });

  it('REST reads the verdict of each kind it writes from the row: a failure the row names becomes that module\'s envelope', () => {
    for (const d of defs.filter((k) => k.restVerdict && k.restVerdict.failedBy !== 'never')) {
      const failed: Resource = {
        apiVersion: API_VERSION, kind: d.kind, metadata: { name: 'x' }, spec: {},
        status: {
          phase: 'Failed', lastError: { overallRC: 300, modID: 10, rc: 300, rs: 5, errmsg: 'boom' },
          conditions: [{ type: 'Synced', status: 'False', reason: 'HypervisorError', message: 'boom', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      } as Resource;
      expect([d.kind, computeFailure(failed as Parameters<typeof computeFailure>[0]) !== undefined]).toEqual([d.kind, true]);
    }
    // someone must deliver the verdict REST waits for
    expect(named((d) => d.restVerdict !== null && d.controller !== 'own')).toEqual([]);
  });

  it('every kind shows its Age, and every reconciled kind its Ready or Phase, as printer columns', () => {
    expect(named((d) => !d.printerColumns.some((c) => c.name === 'Age'))).toEqual([]);
    expect(named((d) => d.controller === 'own' && !d.printerColumns.some((c) => c.name === 'Ready' || c.name === 'Phase'))).toEqual([]);
  });
});
