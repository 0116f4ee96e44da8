import type { ZHost } from '../../../src/api/index.js';
import { createDryRunStore } from '../../../src/store/dry-run-store.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';

const host = (name: string): ZHost => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name }, spec: { simulated: true } });

describe('dry-run store', () => {
  it('answers reads with what the run wrote, records the writes, and leaves the live store as it was', async () => {
    const live = createEmbeddedStore();
    const a = await live.create(host('a'));
    await live.create(host('b'));
    const dry = createDryRunStore(live);

    await dry.updateStatus<ZHost>({ ...a, status: { phase: 'Ready' } as ZHost['status'] });
    await dry.patch('ZHost', { name: 'a' }, { metadata: { labels: { tier: 'prod' } } });
    await dry.create(host('c'));
    await dry.delete('ZHost', { name: 'b' });

    expect((await dry.get<ZHost>('ZHost', { name: 'a' }))?.metadata.labels).toEqual({ tier: 'prod' });
    expect((await dry.get<ZHost>('ZHost', { name: 'a' }))?.status).toEqual({ phase: 'Ready' });
    expect(await dry.get('ZHost', { name: 'b' })).toBeUndefined();
    expect((await dry.list('ZHost')).items.map((h) => h.metadata.name)).toEqual(['a', 'c']);
    expect((await dry.list('ZHost', { labelSelector: { tier: 'prod' } })).items.map((h) => h.metadata.name)).toEqual(['a']);
    expect((await dry.list('ZHost', { labelSelector: { tier: null } })).items.map((h) => h.metadata.name)).toEqual(['c']);
    expect(dry.writes.map((w) => `${w.verb} ${w.key}`)).toEqual(['updateStatus a', 'patch a', 'create c', 'delete b']);

    expect((await live.get<ZHost>('ZHost', { name: 'a' }))?.metadata.labels).toBeUndefined();
    expect((await live.get<ZHost>('ZHost', { name: 'a' }))?.status).toBeUndefined();
    expect(await live.get('ZHost', { name: 'b' })).toBeDefined();
    expect(await live.get('ZHost', { name: 'c' })).toBeUndefined();
  });
});
