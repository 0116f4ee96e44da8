/** apply's three-way merge, as kubectl's client-side apply merges a custom resource (JSON merge semantics). */
import type { Resource } from '../../../src/api/index.js';
import { appliedOnto, LAST_APPLIED, merge3, withLastApplied } from '../../../src/cmd/apply-merge.js';

const guest = (spec: Record<string, unknown>, labels?: Record<string, string>): Resource =>
  ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'g', namespace: 'default', ...(labels ? { labels } : {}) }, spec }) as Resource;

describe('merge3', () => {
  it('sets what the manifest sets, drops what only the last apply set, keeps what others set', () => {
    expect(merge3({ a: 1, b: 2 }, { a: 5 }, { a: 1, b: 2, c: 3 })).toEqual({ a: 5, c: 3 });
  });
  it('recurses into objects and replaces lists whole', () => {
    expect(merge3({ m: { x: 1, y: 2 }, l: [1, 2] }, { m: { x: 1 }, l: [3] }, { m: { x: 1, y: 2, z: 9 }, l: [1, 2] })).toEqual({ m: { x: 1, z: 9 }, l: [3] });
  });
});

describe('apply onto the live object', () => {
  const manifest = guest({ userid: 'G1', vcpus: 1, memory: '1G' }, { tier: 'web', team: 'a' });

  it('keeps spec.image that a deploy wrote after the first apply', () => {
    const live = withLastApplied(manifest);
    const deployed = { ...live, spec: { ...(live.spec as object), image: 'rhel9' } } as Resource;
    const again = appliedOnto(deployed, manifest);
    expect(again.spec).toEqual({ userid: 'G1', vcpus: 1, memory: '1G', image: 'rhel9' });
  });

  it('removes a field and a label the new manifest no longer has, and records the new manifest', () => {
    const live = withLastApplied(manifest);
    const next = guest({ userid: 'G1', vcpus: 2 }, { tier: 'web' });
    const applied = appliedOnto(live, next);
    expect(applied.spec).toEqual({ userid: 'G1', vcpus: 2 });
    expect(applied.metadata.labels).toEqual({ tier: 'web' });
    expect(JSON.parse(applied.metadata.annotations![LAST_APPLIED]!)).toMatchObject({ spec: { userid: 'G1', vcpus: 2 } });
  });

  it('without a record (an object created otherwise) only sets, never removes', () => {
    const live = { ...guest({ userid: 'G1', vcpus: 1, image: 'x' }), metadata: { name: 'g', namespace: 'default', annotations: { keep: 'me' } } } as Resource;
    const applied = appliedOnto(live, guest({ userid: 'G1', vcpus: 3 }));
    expect(applied.spec).toEqual({ userid: 'G1', vcpus: 3, image: 'x' });
    expect(applied.metadata.annotations).toMatchObject({ keep: 'me' });
  });
});
