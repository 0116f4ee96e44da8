import type { ZGuest } from '../../../src/api/index.js';
import { createZGuestReconciler } from '../../../src/controllers/index.js';
import { silentLogger } from '../../../src/log.js';
import { createRestApp } from '../../../src/rest/index.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import type { StateStore } from '../../../src/store/port.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';
import { listenLocal, type HttpResponse, type RequestOptions } from './support/http.js';

/** Reconciles every ZGuest every few milliseconds until stopped: the runtime reduced to a loop. */
function runController(store: StateStore, hv: FakeHypervisor) {
  const reconciler = createZGuestReconciler({ store, hypervisors: { forHost: () => hv }, events: { event: () => undefined }, log: silentLogger(), pollMs: 5 });
  const ac = new AbortController();
  const loop = (async () => {
    while (!ac.signal.aborted) {
      const { items } = await store.list<ZGuest>('ZGuest');
      for (const g of items) {
        await reconciler.reconcile({ namespace: g.metadata.namespace, name: g.metadata.name }, ac.signal).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return async () => {
    ac.abort();
    await loop;
  };
}

describe('REST against the real ZGuest controller and a fake host', () => {
  let store: StateStore;
  let hv: FakeHypervisor;
  let stop: () => Promise<void>;
  let close: () => Promise<void>;
  let inject: (o: RequestOptions) => Promise<HttpResponse>;

  beforeEach(async () => {
    store = createEmbeddedStore();
    hv = new FakeHypervisor();
    const app = createRestApp({ store, hypervisors: { forHost: () => hv }, log: silentLogger(), config: { operationTimeoutMs: 5000, diskPool: 'ECKD:POOL1' } });
    inject = await listenLocal(app);
    stop = runController(store, hv);
    close = async () => {
      await stop();
      await app.close();
      await store.close();
    };
  });
  afterEach(async () => { await close(); });

  const send = (method: string, url: string, body?: unknown) =>
    inject({ method, url, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }) });

  it('creates, starts, stops and deletes a guest on the host', async () => {
    const created = await send('POST', '/guests', { guest: { userid: 'live01', vcpus: 2, memory: 2048, disk_list: [{ size: '1G', is_boot_disk: true }] } });
    expect(created.statusCode).toBe(200);
    expect(created.json().output).toEqual([expect.objectContaining({ vdev: '0100', disk_pool: 'ECKD:POOL1', is_boot_disk: true })]);
    expect(hv.entries.get('LIVE01')?.power).toBe('off');
    expect((await send('POST', '/guests/live01/action', { action: 'start' })).statusCode).toBe(200);
    expect(hv.entries.get('LIVE01')?.power).toBe('on');
    expect((await send('GET', '/guests/LIVE01/power_state')).json().output).toBe('on');
    expect((await send('POST', '/guests/live01/action', { action: 'stop' })).statusCode).toBe(200);
    expect(hv.entries.get('LIVE01')?.power).toBe('off');
    expect((await send('DELETE', '/guests/live01')).statusCode).toBe(200);
    expect(hv.entries.has('LIVE01')).toBe(false);
  });

  it('answers 409 when the userid is already defined on the host, and keeps that guest', async () => {
    await hv.createGuest({ userid: 'TAKEN2', vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
    const res = await send('POST', '/guests', { guest: { userid: 'TAKEN2', vcpus: 1, memory: 1024 } });
    expect(res.json()).toMatchObject({ overallRC: 409, modID: 10, rc: 409, rs: 1 });
    expect(res.statusCode).toBe(409);
    expect(hv.entries.has('TAKEN2')).toBe(true);
    expect((await send('GET', '/guests')).json().output).toEqual([]);
  });
});
