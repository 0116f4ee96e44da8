/**
 * Standalone mode (one process holding every host) on the error paths of issue 21: a guest naming a
 * host without a ZHost is reported HostNotFound, deleted without waiting, and Ready once the ZHost
 * appears; deleting a ZHost its guests still name is held (GuestsRemaining) until they are gone.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { API_VERSION, type ZGuest, type ZHost } from '../../../src/api/index.js';
import type { Resource } from '../../../src/api/index.js';
import { standaloneForSuite } from './helpers.js';

const suite = standaloneForSuite();
const guestKey = (name: string) => ({ namespace: 'default', name });
const readyOf = (g: Resource | undefined) => (g as ZGuest | undefined)?.status?.conditions?.find((c) => c.type === 'Ready');

/** Reads until `check` holds, at most 20 s (400 looks). */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i += 1) {
    const value = await read();
    if (check(value)) return value;
    await delay(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function aGuest(name: string, userid: string, host: string): ZGuest {
  return { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid, host, vcpus: 1, memory: '512M' } };
}

const aSimulatedHost = (name: string): ZHost => ({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name }, spec: { simulated: true } });

describe('standalone: unknown and deleted hosts', () => {
  it('reports a guest of an unknown host HostNotFound, deletes it at once, and readies another once its ZHost appears', async () => {
    const store = suite.app.store;
    await store.create(aGuest('typo', 'TYPO1', 'nope'));
    const typo = await until('HostNotFound', () => store.get<ZGuest>('ZGuest', guestKey('typo')), (g) => readyOf(g)?.reason === 'HostNotFound');
    expect(readyOf(typo)).toMatchObject({ status: 'False', message: 'ZHost nope is not known' });
    expect(typo?.metadata.finalizers ?? []).toEqual([]);
    await store.delete('ZGuest', guestKey('typo'));
    expect(await store.get('ZGuest', guestKey('typo'))).toBeUndefined();

    await store.create(aGuest('early', 'EARLY1', 'late'));
    await until('HostNotFound', () => store.get<ZGuest>('ZGuest', guestKey('early')), (g) => readyOf(g)?.reason === 'HostNotFound');
    await store.create(aSimulatedHost('late'));
    await until('Ready once the host exists', () => store.get<ZGuest>('ZGuest', guestKey('early')), (g) => readyOf(g)?.status === 'True');
  });

  it('holds the deletion of a ZHost while a guest names it, then lets it go with the guest', async () => {
    const store = suite.app.store;
    await store.create(aSimulatedHost('lab'));
    await store.create(aGuest('onlab', 'ONLAB1', 'lab'));
    await until('the guest Ready', () => store.get<ZGuest>('ZGuest', guestKey('onlab')), (g) => readyOf(g)?.status === 'True');
    await until('the ZHost finalizer', () => store.get<ZHost>('ZHost', { name: 'lab' }), (h) => (h?.metadata.finalizers ?? []).includes('zvm.dev/host-protection'));
    await store.delete('ZHost', { name: 'lab' });
    const held = await until('GuestsRemaining', () => store.get<ZHost>('ZHost', { name: 'lab' }),
      (h) => h?.status?.conditions?.some((c) => c.type === 'GuestsRemaining' && c.status === 'True') === true);
    expect(held?.metadata.deletionTimestamp).toBeDefined();
    await store.delete('ZGuest', guestKey('onlab'));
    await until('the guest gone', () => store.get('ZGuest', guestKey('onlab')), (g) => g === undefined);
    await until('the ZHost gone', () => store.get('ZHost', { name: 'lab' }), (h) => h === undefined);
    expect(await suite.app.hosts.forHost('lab')?.describeGuest('ONLAB1')).toBeUndefined();
  });
});
