/**
 * The operator as standalone wires it finds a rival claim on a userid through its informer index
 * (src/cmd/operator.ts, src/runtime/informer-index.ts): the younger of two ZGuests for one userid gets
 * the conflict, the older keeps its guest.
 */
import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { standaloneForSuite } from './helpers.js';

const BOUND_MS = 30_000;

function aGuest(name: string, namespace: string): ZGuest {
  return { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace }, spec: { userid: 'CLAIM01', vcpus: 1, memory: '512M', powerState: 'Running' } };
}

describe('a userid claimed by two ZGuests', () => {
  const suite = standaloneForSuite();

  async function phaseOf(name: string, namespace: string, want: string): Promise<string | undefined> {
    const until = Date.now() + BOUND_MS;
    let phase: string | undefined;
    while (Date.now() < until) {
      phase = (await suite.app.store.get<ZGuest>('ZGuest', { name, namespace }))?.status?.phase;
      if (phase === want) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return phase;
  }

  it('gives the younger the conflict', async () => {
    await suite.app.store.create(aGuest('first', 'default'));
    expect(await phaseOf('first', 'default', 'Running')).toBe('Running');
    await suite.app.store.create(aGuest('second', 'other'));
    expect(await phaseOf('second', 'other', 'Conflict')).toBe('Conflict');
    // the claim check named the rival (not only the host entry's owner comment)
    const second = await suite.app.store.get<ZGuest>('ZGuest', { name: 'second', namespace: 'other' });
    expect(JSON.stringify(second?.status?.conditions)).toContain('claimed on this host by ZGuest default/first');
    expect(await phaseOf('first', 'default', 'Running')).toBe('Running');
  }, 2 * BOUND_MS + 10_000);
});
