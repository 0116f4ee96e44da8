/**
 * Conversion round trip of every spec field of every zvm.dev kind on a real kube-apiserver (issue 37):
 * each kind's objects with every field set (every-field.ts, from the kind's definition) are created
 * through v1alpha1, read through v1beta1, written back through v1beta1 and read through v1alpha1; the
 * spec comes back whole each time. A field the generated objects miss fails the first test.
 */
import { stringify } from 'yaml';
import { KINDS, type Resource } from '../../../src/api/index.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { apiserverWithCrds } from './apiserver.js';
import { everyFieldObjects, everyFieldSpecs, unsetPaths } from './every-field.js';

const { opts } = apiserverWithCrds();
const ours = Object.values(KINDS).filter((d) => !d.version);

test.each(ours.map((d) => [d.kind, d] as const))('the generated %s objects set every field of its spec', (_kind, def) => {
  expect(unsetPaths(def, everyFieldSpecs(def, 'zvm.dev/v1alpha1'))).toEqual([]);
});

test.each(ours.map((d) => [d.kind, d] as const))('%s: created at v1alpha1, read at v1beta1, written at v1beta1, read at v1alpha1, every field kept', async (_kind, def) => {
  const resource = (version: string) => `${def.plural}.${version}.zvm.dev`;
  const read = async (version: string, o: Resource) =>
    JSON.parse(await kubectlOk(['get', resource(version), o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []), '-o', 'json'], opts())) as Resource;
  for (const obj of everyFieldObjects(def, 'zvm.dev/v1alpha1', 'default')) {
    await kubectlOk(['create', '-f', '-'], opts(stringify(obj)));
    const beta = await read('v1beta1', obj);
    expect([beta.apiVersion, beta.spec]).toEqual(['zvm.dev/v1beta1', obj.spec]);
    // written back as read, with a label that shows the write happened
    await kubectlOk(['replace', '-f', '-'], opts(JSON.stringify({ ...beta, metadata: { ...beta.metadata, labels: { written: 'v1beta1' } } })));
    const alpha = await read('v1alpha1', obj);
    expect([alpha.apiVersion, alpha.spec, alpha.metadata.labels]).toEqual(['zvm.dev/v1alpha1', obj.spec, { written: 'v1beta1' }]);
    expect(alpha.metadata.uid).toBe(beta.metadata.uid);
  }
}, 60_000);
