/** A status write that meets a conflict: ridden out when only metadata or spec moved, thrown when the status did. */
import { API_VERSION, type ZGuest } from '../../../../src/api/index.js';
import { writeStatusIfChanged } from '../../../../src/controllers/kit/index.js';
import { PROGRESS_REBASE } from '../../../../src/controllers/zguest/status.js';
import { ConflictError } from '../../../../src/errors.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import { keyOf, type StateStore } from '../../../../src/store/port.js';

const progress = (bytesDone: number) => ({ operation: 'deploy' as const, bytesDone, bytesTotal: 100, summary: `${bytesDone} B`, updatedAt: '2026-01-01T00:00:00Z' });

async function aStoredGuest(store: StateStore): Promise<ZGuest> {
  const created = await store.create<ZGuest>({
    apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'g1', namespace: 'default' }, spec: { userid: 'LINUX01', vcpus: 2, memory: '2G' },
  });
  return store.updateStatus<ZGuest>({ ...created, status: { phase: 'Creating' } });
}

describe('writeStatusIfChanged', () => {
  it('puts the status onto the object read again when a label moved it on, and keeps the label', async () => {
    const store = createEmbeddedStore();
    const read = await aStoredGuest(store);
    await store.patch('ZGuest', keyOf(read), { metadata: { labels: { 'zvm.dev/host': 'default' } } });
    const written = await writeStatusIfChanged(store, read, { phase: 'Running', deployedImage: 'rhel9' });
    const stored = await store.get<ZGuest>('ZGuest', keyOf(read));
    expect(stored?.status).toEqual({ phase: 'Running', deployedImage: 'rhel9' });
    expect(stored?.metadata.labels).toEqual({ 'zvm.dev/host': 'default' });
    expect(written.metadata.resourceVersion).toBe(stored?.metadata.resourceVersion);
  });

  it('leaves a status someone else moved on alone: the conflict is thrown', async () => {
    const store = createEmbeddedStore();
    const read = await aStoredGuest(store);
    await store.updateStatus<ZGuest>({ ...read, status: { phase: 'Failed' } });
    await expect(writeStatusIfChanged(store, read, { phase: 'Running' })).rejects.toBeInstanceOf(ConflictError);
    expect((await store.get<ZGuest>('ZGuest', keyOf(read)))?.status).toEqual({ phase: 'Failed' });
  });

  it('does not write onto another object of the same name (deleted and made again)', async () => {
    const store = createEmbeddedStore();
    const read = await aStoredGuest(store);
    await store.delete('ZGuest', keyOf(read));
    await aStoredGuest(store);
    await expect(writeStatusIfChanged(store, read, { phase: 'Running' })).rejects.toBeInstanceOf(ConflictError);
    expect((await store.get<ZGuest>('ZGuest', keyOf(read)))?.status).toEqual({ phase: 'Creating' });
  });

  it("with the guest's rebase, rides out its own deploy's progress reports and keeps the newest", async () => {
    const store = createEmbeddedStore();
    const read = await aStoredGuest(store);
    await store.patchStatus('ZGuest', keyOf(read), { progress: progress(40) });
    await store.patchStatus('ZGuest', keyOf(read), { progress: progress(100) });
    await writeStatusIfChanged(store, read, { phase: 'Running', deployedImage: 'rhel9' }, PROGRESS_REBASE);
    expect((await store.get<ZGuest>('ZGuest', keyOf(read)))?.status).toEqual({ phase: 'Running', deployedImage: 'rhel9', progress: progress(100) });
  });

  it('without that rebase, a moved progress is a moved status', async () => {
    const store = createEmbeddedStore();
    const read = await aStoredGuest(store);
    await store.patchStatus('ZGuest', keyOf(read), { progress: progress(40) });
    await expect(writeStatusIfChanged(store, read, { phase: 'Running' })).rejects.toBeInstanceOf(ConflictError);
  });
});
