/**
 * REST's guest look-up by userid (issue 23): every create and every /guests/<userid> call finds its
 * guest through a userid index over the REST index's events instead of scanning every guest, so the
 * objects examined per look-up stay flat from 1 000 to 20 000 guests. Counted objects, not times.
 */
import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { silentLogger } from '../../../src/log.js';
import { DEFAULT_REST_CONFIG } from '../../../src/rest/config.js';
import { createGuestService } from '../../../src/rest/guests/service.js';
import { createEmbeddedStore } from '../../../src/store/index.js';
import type { StateStore } from '../../../src/store/port.js';
import { createStubInformer } from '../runtime/stub-informer.js';

const SAMPLE = 200;

function aGuest(i: number, userid = `G${i}`, host = 'default'): ZGuest {
  // named unlike REST's own names, so the direct read by name misses and the look-up by userid runs
  return { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: `k8s-${i}`, namespace: 'ns' }, spec: { userid, vcpus: 1, memory: '1G', host } };
}

/** A guest service over `guests` whose index and store count every object they hand out. */
function serviceOver(guests: ZGuest[]) {
  const informer = createStubInformer('ZGuest');
  let examined = 0;
  const index = {
    list: () => {
      const all = informer.list() as ZGuest[];
      examined += all.length;
      return all;
    },
    get: informer.get as (k: never) => ZGuest | undefined,
    addHandler: informer.addHandler as never,
  };
  const store: StateStore = createEmbeddedStore({ log: silentLogger() });
  const counted: StateStore = Object.create(store, {
    list: { value: async (...args: Parameters<StateStore['list']>) => {
      const res = await store.list(...args);
      examined += res.items.length;
      return res;
    } },
  });
  const service = createGuestService({ store: counted, hypervisors: {} as never, config: DEFAULT_REST_CONFIG, log: silentLogger(), writes: {} as never, index });
  // the stub does not replay its cache to a new handler as an informer does: the guests arrive after
  for (const g of guests) informer.emitAdd(g);
  return { service, informer, examined: () => examined };
}

async function examinedPerLookup(count: number): Promise<number> {
  const { service, examined } = serviceOver(Array.from({ length: count }, (_, i) => aGuest(i)));
  for (let i = 0; i < SAMPLE; i++) expect((await service.find(`g${i * 4}`))?.metadata.name).toBe(`k8s-${i * 4}`);
  expect(await service.find('NOSUCH')).toBeUndefined();
  return examined() / (SAMPLE + 1);
}

describe('REST guest look-up by userid', () => {
  it('examines as many objects per look-up at 20 000 guests as at 1 000', async () => {
    const small = await examinedPerLookup(1_000);
    const large = await examinedPerLookup(20_000);
    expect(large).toBeLessThanOrEqual(1.5 * small);
    expect(large).toBeLessThanOrEqual(1); // at most the guest itself: no list of the fleet
  });

  it('prefers the default host, and follows a guest that moves to another userid', async () => {
    const elsewhere = aGuest(1, 'SAME', 'other');
    const here = aGuest(2, 'same');
    const { service, informer } = serviceOver([elsewhere, here]);
    expect((await service.find('SAME'))?.metadata.name).toBe('k8s-2');
    const renamed = { ...here, spec: { ...here.spec, userid: 'NEWID' } };
    informer.emitUpdate(here, renamed);
    expect((await service.find('same'))?.metadata.name).toBe('k8s-1');
    expect((await service.find('newid'))?.metadata.name).toBe('k8s-2');
  });
});

describe('REST guest look-up before the index has listed', () => {
  it('answers from the store until the index has synced, then from the index', async () => {
    const store: StateStore = createEmbeddedStore({ log: silentLogger() });
    await store.create(aGuest(7));
    const informer = createStubInformer('ZGuest');
    let synced = false;
    const index = { list: () => informer.list() as ZGuest[], get: informer.get as (k: never) => ZGuest | undefined, addHandler: informer.addHandler as never, hasSynced: () => synced };
    const service = createGuestService({ store, hypervisors: {} as never, config: { ...DEFAULT_REST_CONFIG, namespace: 'ns' }, log: silentLogger(), writes: {} as never, index });
    // the index is empty and has not listed yet: an empty answer would be a wrong 404
    expect((await service.find('g7'))?.metadata.name).toBe('k8s-7');
    expect(await service.list()).toEqual(['G7']);
    synced = true;
    expect(await service.find('g7')).toBeUndefined(); // now the (still empty) index is the answer
  });
});
