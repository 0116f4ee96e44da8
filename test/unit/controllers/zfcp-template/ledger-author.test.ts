/**
 * The ZFcpTemplate reconciler as the ledger's one author: rows derived from the declared usage and the
 * volumes' connections, the host read only when due, and a ledger an earlier release (or `migrate
 * feilong`) kept in status adopted into spec once, so no reservation is lost on the way.
 */
import { API_VERSION, type FcpUsage, type ZFcpTemplate, type ZVolume } from '../../../../src/api/index.js';
import { createZFcpTemplateReconciler, isSyncDue } from '../../../../src/controllers/zfcp-template/reconciler.js';
import { silentLogger } from '../../../../src/log.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import type { StateStore } from '../../../../src/store/port.js';

const row = (fcp: string, usage: Partial<FcpUsage> = {}): FcpUsage => ({
  fcp, path: 0, assignerId: '', reserved: 0, connections: 0, wwpnNpiv: 'n', wwpnPhy: 'p', chpid: '27', state: 'free', owner: '', ...usage,
});
const signal = new AbortController().signal;

async function aTemplate(store: StateStore, spec: Partial<ZFcpTemplate['spec']>, fcps: FcpUsage[]): Promise<ZFcpTemplate> {
  const t = await store.create<ZFcpTemplate>({ apiVersion: API_VERSION, kind: 'ZFcpTemplate', metadata: { name: 't1' }, spec: { name: 't1', fcpDevices: '1a00-1a01', ...spec } });
  return store.updateStatus<ZFcpTemplate>({ ...t, status: { fcps, phase: 'Ready', pathCount: 1, lastSyncTime: new Date().toISOString() } });
}

describe('the FCP ledger\'s author', () => {
  let store: StateStore;
  let queried: number;
  const reconciler = () => createZFcpTemplateReconciler({
    store, log: silentLogger(),
    hypervisors: { forHost: () => ({ fcp: { queryFcps: async () => (queried++, []) } }) as never },
  });
  const ledger = async () => (await store.get<ZFcpTemplate>('ZFcpTemplate', { name: 't1' }))!;
  beforeEach(() => {
    store = createEmbeddedStore();
    queried = 0;
  });

  it('adopts a ledger kept in status into spec.fcpUsage once, and derives the same rows from it', async () => {
    const kept = [row('1a00', { assignerId: 'G1', reserved: 1, connections: 1, volumes: ['ns/v1'] }), row('1a01')];
    await aTemplate(store, {}, kept);
    const volume = { apiVersion: API_VERSION, kind: 'ZVolume', metadata: { name: 'v1', namespace: 'ns' }, spec: { assignerId: 'G1', fcps: ['1a00'], targetWwpns: ['0x5005076802100c1b'], lun: '0x0000000000000001', osVersion: 'rhel9', multipath: false } };
    const v = await store.create<ZVolume>(volume as ZVolume);
    await store.updateStatus<ZVolume>({ ...v, status: { phase: 'Attached', connections: [{ fcp: '1a00', template: 't1' }] } });
    await reconciler().reconcile({ name: 't1' }, signal);
    expect((await ledger()).spec.fcpUsage).toEqual([{ fcp: '1a00', assignerId: 'G1', reserved: 1, connections: 1, volumes: ['ns/v1'] }]);
    await reconciler().reconcile({ name: 't1' }, signal);
    expect((await ledger()).status?.fcps).toEqual(kept);
    // the volume gives its connection back: the row loses it, the reservation stays
    await store.updateStatus<ZVolume>({ ...(await store.get<ZVolume>('ZVolume', { namespace: 'ns', name: 'v1' }))!, status: { phase: 'Detaching', connections: [] } });
    await reconciler().reconcile({ name: 't1' }, signal);
    expect((await ledger()).status?.fcps?.[0]).toEqual(row('1a00', { assignerId: 'G1', reserved: 1 }));
    expect(queried).toBe(0);
  });

  it('adopts nothing once spec declares the usage (an empty declaration included)', async () => {
    await aTemplate(store, { fcpUsage: [] }, [row('1a00', { assignerId: 'G1', reserved: 1 }), row('1a01')]);
    await reconciler().reconcile({ name: 't1' }, signal);
    const t = await ledger();
    expect(t.spec.fcpUsage).toEqual([]);
    expect(t.status?.fcps?.[0]).toEqual(row('1a00'));
  });

  it('reads the host when the sync is due, the devices changed or the last read failed; a usage change alone does not', async () => {
    const t = await aTemplate(store, { fcpUsage: [] }, [row('1a00'), row('1a01')]);
    const now = new Date(Date.parse(t.status!.lastSyncTime!) + 1000);
    expect(isSyncDue(t, [['1a00', '1a01']], now, 60_000)).toBe(false);
    expect(isSyncDue(t, [['1a00', '1a01', '1a02']], now, 60_000)).toBe(true);
    expect(isSyncDue(t, [['1a00', '1a01']], new Date(now.getTime() + 60_000), 60_000)).toBe(true);
    expect(isSyncDue({ ...t, status: { ...t.status, phase: 'Failed' } }, [['1a00', '1a01']], now, 60_000)).toBe(true);
  });
});
