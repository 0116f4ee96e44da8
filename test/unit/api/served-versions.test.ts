/**
 * Every CRD serves v1alpha1 and v1beta1 and stores v1beta1 (issue 37). Conversion strategy None is
 * only right while both versions have the same schema: the apiserver then converts by relabelling
 * apiVersion. A schema that starts to differ needs a conversion webhook, and this test says so.
 */
import { parse } from 'yaml';
import { resolveResource, validateResource } from '../../../src/api/index.js';
import { renderCrds } from '../../../src/api/render-crds.js';
import { createEmbeddedStore } from '../../../src/store/index.js';

interface Version { name: string; served: boolean; storage: boolean; deprecated?: boolean; deprecationWarning?: string; schema: unknown; subresources: unknown; additionalPrinterColumns?: unknown }
interface Crd { metadata: { name: string }; spec: { names: { kind: string }; versions: Version[]; conversion?: { strategy: string } } }

const crds = [...renderCrds('zvm.dev').values()].map((text) => parse(text) as Crd);
/** the schema with the one line that names its own version taken out */
const withoutOwnName = (v: Version) => JSON.parse(JSON.stringify(v.schema).replaceAll(`zvm.dev/${v.name}`, 'zvm.dev/<version>')) as unknown;

describe.each(crds.map((c) => [c.metadata.name, c] as const))('%s', (_name, crd) => {
  it('serves v1beta1 (stored) and v1alpha1', () => {
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1beta1', true, true], ['v1alpha1', true, false]]);
  });

  it('marks v1alpha1 deprecated with a warning that names the kind at v1beta1, and v1beta1 not', () => {
    const [beta, alpha] = crd.spec.versions as [Version, Version];
    const kind = crd.spec.names.kind;
    expect([alpha.deprecated, alpha.deprecationWarning]).toEqual([true, `zvm.dev/v1alpha1 ${kind} is deprecated; use zvm.dev/v1beta1 ${kind}`]);
    expect([beta.deprecated, beta.deprecationWarning]).toEqual([undefined, undefined]);
  });

  it('has one schema, subresources and printer columns for both versions, so conversion None is right', () => {
    const [beta, alpha] = crd.spec.versions as [Version, Version];
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
    expect(withoutOwnName(alpha)).toEqual(withoutOwnName(beta));
    expect(alpha.subresources).toEqual(beta.subresources);
    expect(alpha.additionalPrinterColumns).toEqual(beta.additionalPrinterColumns);
  });
});

describe('standalone takes every served version, as the apiserver does', () => {
  const host = (apiVersion: string) => ({ apiVersion, kind: 'ZHost', metadata: { name: 'h1' }, spec: { simulated: true } });

  it('validates v1beta1 and v1alpha1 objects and refuses another version', () => {
    expect(() => validateResource(host('zvm.dev/v1beta1'))).not.toThrow();
    expect(() => validateResource(host('zvm.dev/v1alpha1'))).not.toThrow();
    expect(() => validateResource(host('zvm.dev/v2'))).toThrow(/apiVersion/);
  });

  it('updates an object created at one version through the other, and refuses another group', async () => {
    const store = createEmbeddedStore();
    try {
      const created = await store.create(host('zvm.dev/v1alpha1'));
      const updated = await store.update({ ...created, apiVersion: 'zvm.dev/v1beta1', metadata: { ...created.metadata, labels: { a: 'b' } } });
      expect(updated.metadata.labels).toEqual({ a: 'b' });
      await expect(store.update({ ...updated, apiVersion: 'other.dev/v1alpha1' })).rejects.toThrow(/apiVersion/);
    } finally {
      await store.close();
    }
  });
});

describe('resource names as kubectl takes them', () => {
  const named = (name: string) => {
    const r = resolveResource(name);
    return r && [r.def.kind, r.version];
  };

  it('takes a kind name alone, with its group, or with a served version and its group', () => {
    expect(named('zg')).toEqual(['ZGuest', undefined]);
    expect(named('zguests.zvm.dev')).toEqual(['ZGuest', undefined]);
    expect(named('zguests.v1alpha1.zvm.dev')).toEqual(['ZGuest', 'v1alpha1']);
    expect(named('ZGuest.v1beta1.zvm.dev')).toEqual(['ZGuest', 'v1beta1']);
    expect(named('zvmmachines.v1alpha1.infrastructure.cluster.x-k8s.io')).toEqual(['ZVMMachine', 'v1alpha1']);
  });

  it('refuses a version not served, another group, or no kind', () => {
    expect(named('zguests.v2.zvm.dev')).toBeUndefined();
    expect(named('zguests.v1beta1.other.dev')).toBeUndefined();
    expect(named('zvmmachines.v1beta1.infrastructure.cluster.x-k8s.io')).toBeUndefined();
    expect(named('nothing.v1beta1.zvm.dev')).toBeUndefined();
  });
});
