import type { ZHost } from '../../../../src/api/index.js';
import { createZHostReconciler } from '../../../../src/controllers/index.js';
import type { HostSummary } from '../../../../src/hypervisor/host-port.js';
import type { Hypervisor } from '../../../../src/hypervisor/port.js';
import { silentLogger } from '../../../../src/log.js';
import { createEmbeddedStore } from '../../../../src/store/index.js';

const summary: HostSummary = {
  zccUserid: 'MAINT', systemName: 'ZVMSIM', version: '7.1.0', hypervisorVersion: 710, vcpus: 4, vcpusUsed: 4,
  cecModel: '8561', memoryMB: 4096, memoryMBUsed: 1024, iplTime: 'IPL at 11/21/26 00:00:00 UTC',
};

/** Only what the ZHost reconciler uses, counting host calls. */
function aCountingHost() {
  const calls: string[] = [];
  const hv = {
    hostQueries: { describe: async () => { calls.push('describe'); return summary; } },
    listDirectory: async () => { calls.push('listDirectory'); return ['LINUX01', 'LINUX02']; },
    health: () => ({ totalSuccess: 1, totalFail: 0, lastSuccess: '', lastFail: '', continuousFail: 0, healthy: true }),
  } as unknown as Hypervisor;
  return { hv, calls };
}

describe('ZHost status refresh', () => {
  it('reads host facts once, not on every periodic refresh, and again when they are stale or the spec changes', async () => {
    const store = createEmbeddedStore();
    const { hv, calls } = aCountingHost();
    let now = new Date('2026-11-22T00:00:00Z');
    const reconciler = createZHostReconciler({ store, hypervisors: { forHost: () => hv }, log: silentLogger(), clock: () => now, factsRefreshMs: 3_600_000 });
    await store.create<ZHost>({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h1' }, spec: { simulated: true } });
    const signal = new AbortController().signal;

    await reconciler.reconcile({ name: 'h1' }, signal);
    expect(calls).toEqual(['describe', 'listDirectory']);
    const first = await store.get<ZHost>('ZHost', { name: 'h1' });
    expect(first?.status).toMatchObject({ hypervisorVersion: '7.1.0', guestCount: 2, smapiHealthy: true, factsRefreshedAt: now.toISOString() });

    now = new Date(now.getTime() + 10 * 60_000);
    await reconciler.reconcile({ name: 'h1' }, signal);
    expect(calls).toHaveLength(2);

    now = new Date(now.getTime() + 3_600_000);
    await reconciler.reconcile({ name: 'h1' }, signal);
    expect(calls).toHaveLength(4);

    await store.patch('ZHost', { name: 'h1' }, { spec: { resyncSeconds: 30 } });
    await reconciler.reconcile({ name: 'h1' }, signal);
    expect(calls).toHaveLength(6);
    await store.close();
  });
});
