import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { renderCrds } from '../../../src/api/render-crds.js';
import { toStructural } from '../../../src/api/crd.js';
import { ZGuestSpec } from '../../../src/api/index.js';

type Json = Record<string, unknown>;

/** Walks a schema and collects keywords a structural CRD schema may not carry. */
function forbiddenKeywords(node: unknown, path = ''): string[] {
  if (!node || typeof node !== 'object') return [];
  const found: string[] = [];
  for (const [k, v] of Object.entries(node as Json)) {
    if (['const', 'anyOf', 'oneOf', 'dependencies', 'patternProperties', 'uniqueItems', '$id'].includes(k)) found.push(`${path}/${k}`);
    if (k === 'additionalProperties' && v === false) found.push(`${path}/additionalProperties`);
    found.push(...forbiddenKeywords(v, `${path}/${k}`));
  }
  return found;
}

describe('generated CRDs', () => {
  it('crds/ matches src/api (run `npm run generate` when this fails)', () => {
    for (const [file, text] of renderCrds()) {
      expect(readFileSync(`crds/${file}`, 'utf8')).toBe(text);
    }
  });

  it('every CRD is structural, has the status subresource, short names and the zvm category', () => {
    for (const text of renderCrds().values()) {
      const crd = parse(text) as Json;
      const spec = crd.spec as Json;
      const version = (spec.versions as Json[])[0];
      expect(forbiddenKeywords((version.schema as Json).openAPIV3Schema)).toEqual([]);
      // only a pool scales (`kubectl scale zgpool/web`)
      const scale = (spec.names as Json).kind === 'ZGuestPool' ? { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } } : {};
      expect(version.subresources).toEqual({ status: {}, ...scale });
      // the Cluster API kinds are listed under cluster-api too
      const capi = spec.group === 'infrastructure.cluster.x-k8s.io';
      expect((spec.names as Json).categories).toEqual(capi ? ['zvm', 'cluster-api'] : ['zvm']);
      expect((crd.metadata as Json).labels).toEqual(capi ? { 'cluster.x-k8s.io/v1beta2': 'v1alpha1' } : undefined);
      expect(((spec.names as Json).shortNames as string[]).length).toBeGreaterThan(0);
      expect((version.additionalPrinterColumns as unknown[]).length).toBeGreaterThan(2);
    }
  });

  it('turns literal unions into patterns and keeps z/VM limits', () => {
    const spec = toStructural(ZGuestSpec) as { properties: Record<string, Json> };
    // a pattern, not an enum: a wrong value is one line, without the apiserver's "rules not checked" note
    expect(spec.properties.powerState).toMatchObject({ type: 'string', pattern: '^(Running|Stopped|Paused|On|Off)$', default: 'Running' });
    expect(spec.properties.powerState).not.toHaveProperty('enum');
    expect(spec.properties.vcpus).toMatchObject({ type: 'integer', minimum: 1, maximum: 64 });
    expect(spec.properties.userid).toMatchObject({ maxLength: 8 });
  });
});

describe('device numbers in the CRDs', () => {
  const guestSpec = () => toStructural(ZGuestSpec) as { properties: Record<string, Json> };

  it('accept a number so that the CEL rule can say to quote it', () => {
    const disks = guestSpec().properties.disks as { items: { properties: Record<string, Json> } };
    const vdev = disks.items.properties.vdev;
    expect(vdev).toMatchObject({ 'x-kubernetes-int-or-string': true, pattern: '^[0-9A-Fa-f]{1,4}$' });
    expect(vdev).not.toHaveProperty('type');
    expect(vdev['x-kubernetes-validations']).toEqual([{ rule: 'type(self) == string', message: 'a device number is text: quote it, e.g. "0100"' }]);
  });
});
