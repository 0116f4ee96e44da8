/**
 * Issue 13 item 5: REST serves the ZGuests of every namespace (userids are host-global, a guest is found
 * by userid wherever it lives), or of the namespaces it is given; what REST creates is marked REST-owned.
 */
import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { MANAGED_BY_LABEL, REST_FIELD_MANAGER } from '../../../src/rest/ownership.js';
import type { RestConfigInput } from '../../../src/rest/index.js';
import { aRestWorld, type RestWorld } from './support/world.js';

const json = (payload: unknown) => ({ headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

async function aGuestIn(w: RestWorld, namespace: string, userid: string, host = 'default'): Promise<void> {
  const obj: ZGuest = { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: `${userid.toLowerCase()}-x`, namespace }, spec: { userid, host, vcpus: 1, memory: '1G', powerState: 'Running' } } as ZGuest;
  await w.store.create(obj);
  // one fake host serves every ZHost name here
  if (!(await w.hv.describeGuest(userid))) await w.hv.createGuest({ userid, vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
  await w.hv.start(userid);
}

describe('REST across namespaces', () => {
  let w: RestWorld | undefined;
  const world = async (config: RestConfigInput = {}) => (w = await aRestWorld(config));
  afterEach(async () => { await w?.close(); });

  it('lists, reads and acts on a guest of another namespace, found by userid', async () => {
    const rest = await world();
    await aGuestIn(rest, 'team-a', 'TEAMA01');
    expect((await rest.inject({ method: 'POST', url: '/guests', ...json({ guest: { userid: 'own01', vcpus: 1, memory: 1024 } }) })).statusCode).toBe(200);

    expect((await rest.inject({ method: 'GET', url: '/guests' })).json().output).toEqual(['OWN01', 'TEAMA01']);
    expect((await rest.inject({ method: 'GET', url: '/guests/teama01/power_state' })).json().output).toBe('on');
    const stop = await rest.inject({ method: 'POST', url: '/guests/teama01/action', ...json({ action: 'stop' }) });
    expect(stop.statusCode).toBe(200);
    const moved = await rest.store.get<ZGuest>('ZGuest', { namespace: 'team-a', name: 'teama01-x' });
    expect(moved?.spec.powerState).toBe('Stopped');
    expect(await rest.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'teama01' })).toBeUndefined();
  });

  it('serves only the namespaces it is given', async () => {
    const rest = await world({ guestNamespaces: ['default'] });
    await aGuestIn(rest, 'team-a', 'TEAMA02');
    expect((await rest.inject({ method: 'GET', url: '/guests' })).json().output).toEqual([]);
    const stop = await rest.inject({ method: 'POST', url: '/guests/teama02/action', ...json({ action: 'stop' }) });
    expect(stop.statusCode).toBe(404);
    expect((await rest.store.get<ZGuest>('ZGuest', { namespace: 'team-a', name: 'teama02-x' }))?.spec.powerState).toBe('Running');
  });

  it('prefers the guest on its default host when one userid lives on two hosts', async () => {
    const rest = await world();
    await aGuestIn(rest, 'team-a', 'TWIN01', 'other');
    await aGuestIn(rest, 'team-b', 'TWIN01', 'default');
    const stop = await rest.inject({ method: 'POST', url: '/guests/twin01/action', ...json({ action: 'stop' }) });
    expect(stop.statusCode).toBe(200);
    expect((await rest.store.get<ZGuest>('ZGuest', { namespace: 'team-b', name: 'twin01-x' }))?.spec.powerState).toBe('Stopped');
    expect((await rest.store.get<ZGuest>('ZGuest', { namespace: 'team-a', name: 'twin01-x' }))?.spec.powerState).toBe('Running');
  });

  it('creates a userid that lives on another host, and refuses one on its own host', async () => {
    const rest = await world();
    await aGuestIn(rest, 'team-a', 'ELSE01', 'other');
    const created = await rest.inject({ method: 'POST', url: '/guests', ...json({ guest: { userid: 'else01', vcpus: 1, memory: 1024 } }) });
    expect(created.statusCode).toBe(200);
    expect((await rest.guest('else01'))?.spec.host).toBe('default');
    const again = await rest.inject({ method: 'POST', url: '/guests', ...json({ guest: { userid: 'else01', vcpus: 1, memory: 1024 } }) });
    expect(again.statusCode).toBe(409);
  });

  it('marks what REST creates as REST-owned', async () => {
    const rest = await world();
    await rest.inject({ method: 'POST', url: '/guests', ...json({ guest: { userid: 'mark01', vcpus: 1, memory: 1024 } }) });
    expect((await rest.guest('mark01'))?.metadata.labels?.[MANAGED_BY_LABEL]).toBe(REST_FIELD_MANAGER);
  });
});
