/**
 * The REST host lookup (src/rest/host-reachability.ts): a host whose ZHost declares its SMAPI
 * unreachable answers the SMAPI-down envelope without a call reaching the hypervisor; the
 * same calls go through once it answers again. The embedded store and its feed are real.
 */
import { SMAPI_REACHABLE, type ZHost } from '../../../src/api/index.js';
import { silentLogger } from '../../../src/log.js';
import { computeHttpStatus } from '../../../src/rest/envelope.js';
import { FeilongError } from '../../../src/rest/feilong-error.js';
import { createReachabilityGate } from '../../../src/rest/host-reachability.js';
import { createStoreFeed, type StoreFeed } from '../../../src/rest/store-feed.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';

const reachable = (status: 'True' | 'False') => ({
  conditions: [{ type: SMAPI_REACHABLE, status, reason: status === 'True' ? 'SmapiAnswers' : 'HostUnreachable', message: '', lastTransitionTime: '2026-01-02T00:00:00Z' }],
});

describe('REST live reads on a host declared unreachable', () => {
  let feed: StoreFeed | undefined;
  afterEach(() => feed?.close());

  it('answer SMAPI down without calling the host, and go through again once it answers', async () => {
    const store = createEmbeddedStore();
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } });
    await store.patchStatus('ZHost', { name: 'default' }, reachable('False'));
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'A', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    let calls = 0;
    const query = hv.queryPowerState.bind(hv);
    hv.queryPowerState = async (userid: string) => {
      calls += 1;
      return query(userid);
    };
    feed = createStoreFeed(store, silentLogger());
    const gate = createReachabilityGate({ forHost: () => hv }, store, feed);

    const refused = await gate.forHost('default').queryPowerState('A').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FeilongError);
    const f = (refused as FeilongError).fields;
    expect(f).toMatchObject({ overallRC: 500, modID: 1, rc: -110 });
    expect(f.errmsg).toContain('SMAPI of host default is unreachable (since 2026-01-02T00:00:00Z)');
    expect(computeHttpStatus(f)).toBe(503);
    // host queries too; health (no SMAPI call) still answers
    await expect(gate.forHost('default').describeHost()).rejects.toBeInstanceOf(FeilongError);
    expect(gate.forHost('default').health()).toEqual(hv.health());
    expect(calls).toBe(0);

    await store.patchStatus('ZHost', { name: 'default' }, reachable('True'));
    let power: string | undefined;
    for (let i = 0; i < 100 && power === undefined; i++) {
      power = await gate.forHost('default').queryPowerState('A').catch(() => new Promise<undefined>((r) => setTimeout(r, 20)));
    }
    expect(power).toBe('off');
    expect(calls).toBe(1);
  });

  it('leaves a host without a ZHost (or one never declared unreachable) to the normal path', async () => {
    const store = createEmbeddedStore();
    const hv = new FakeHypervisor();
    await hv.createGuest({ userid: 'A', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    feed = createStoreFeed(store, silentLogger());
    const gate = createReachabilityGate({ forHost: () => hv }, store, feed);
    expect(await gate.forHost('nowhere').queryPowerState('A')).toBe('off');
  });
});
