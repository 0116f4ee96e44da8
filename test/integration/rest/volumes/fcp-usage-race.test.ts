/**
 * Two guests reserving at once never both get one FCP: each reserve is computed on the ledger as derived
 * at one resourceVersion of the template and declared in its spec under that version, so of requests that
 * all computed on the same version one wins and the others read again (they all read before any writes:
 * a barrier on the first reads makes the race certain). The ledger is written by the template's own
 * reconciler, running beside the requests over the real embedded store and the REST write-and-wait engine.
 */
import { API_VERSION, type FcpUsage, type Resource, type ZFcpTemplate } from '../../../../src/api/index.js';
import { fcpLedger } from '../../../../src/controllers/index.js';
import { createZFcpTemplateReconciler } from '../../../../src/controllers/zfcp-template/reconciler.js';
import { ConflictError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/log.js';
import type { RestConfig } from '../../../../src/rest/config.js';
import { createStoreFeed } from '../../../../src/rest/store-feed.js';
import { createTemplateService } from '../../../../src/rest/volumes/templates.js';
import { createWriteAndWait } from '../../../../src/rest/write-and-wait.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import type { MergePatch, ObjectKey, StateStore } from '../../../../src/store/port.js';

const GUESTS = ['RACE1', 'RACE2', 'RACE3', 'RACE4'];
const row = (fcp: string): FcpUsage => ({ fcp, path: 0, assignerId: '', reserved: 0, connections: 0, wwpnNpiv: `c0507600000${fcp}`, wwpnPhy: 'c050760000000027', chpid: '27', state: 'free', owner: '' });

/** The store, with the first GUESTS.length template reads held until all of them are asked, and rejected writes counted. */
function racingStore(inner: StateStore) {
  let asked = 0;
  let release!: () => void;
  const allAsked = new Promise<void>((resolve) => (release = resolve));
  let conflicts = 0;
  const store: StateStore = {
    ...inner,
    async get<T extends Resource>(kind: string, key: ObjectKey): Promise<T | undefined> {
      const obj = await inner.get<T>(kind, key);
      if (kind === 'ZFcpTemplate' && asked < GUESTS.length) {
        asked += 1;
        if (asked === GUESTS.length) release();
        await allAsked;
      }
      return obj;
    },
    async patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, opts?: { resourceVersion?: string }): Promise<T> {
      try {
        return await inner.patch<T>(kind, key, patch, opts);
      } catch (err) {
        if (err instanceof ConflictError) conflicts += 1;
        throw err;
      }
    },
  };
  return { store, conflicts: () => conflicts };
}

describe('FCP reservations racing for one template', () => {
  it('gives each FCP to one guest only, and the ledger shows each reservation as answered', async () => {
    const inner = createEmbeddedStore();
    const tmpl = await inner.create<ZFcpTemplate>({ apiVersion: API_VERSION, kind: 'ZFcpTemplate', metadata: { name: 'race' }, spec: { name: 'race', fcpDevices: '1a10-1a12', fcpUsage: [] } });
    // synced with the host just now: the reconciler only derives the ledger
    await inner.updateStatus<ZFcpTemplate>({ ...tmpl, status: { fcps: ['1a10', '1a11', '1a12'].map(row), phase: 'Ready', lastSyncTime: new Date().toISOString(), pathCount: 1 } });
    const reconciler = createZFcpTemplateReconciler({ store: inner, hypervisors: { forHost: () => undefined }, log: silentLogger() });
    const signal = new AbortController().signal;
    let running = true;
    const loop = (async () => {
      while (running) {
        await reconciler.reconcile({ name: 'race' }, signal);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();

    const { store, conflicts } = racingStore(inner);
    const feed = createStoreFeed(inner, silentLogger());
    const writes = createWriteAndWait({ store, feed, config: { operationTimeoutMs: 10_000 }, log: silentLogger() });
    const config = { defaultHost: 'default', namespace: 'default' } as RestConfig;
    const templates = createTemplateService({ store, config, writes });
    try {
      const got = await Promise.all(GUESTS.map((g) => templates.changeUsage('race', (rows) => {
        const a = fcpLedger.computeReserve(rows, g, 1);
        return { rows: a.changed ? a.rows : undefined, value: a.fcps.map((r) => r.fcp) };
      })));
      // every request computed on the same version: the race happened, and the losers read again
      expect(conflicts()).toBeGreaterThan(0);
      const taken = got.flat();
      expect([...taken].sort()).toEqual(['1a10', '1a11', '1a12']);
      expect(got.filter((f) => f.length === 0)).toHaveLength(1);
      const ledger = (await inner.get<ZFcpTemplate>('ZFcpTemplate', { name: 'race' }))!.status!.fcps!;
      for (const [i, fcps] of got.entries()) {
        for (const fcp of fcps) expect(ledger.find((r) => r.fcp === fcp)).toMatchObject({ assignerId: GUESTS[i], reserved: 1 });
      }
    } finally {
      running = false;
      await loop;
      feed.close();
    }
  });
});
