import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { changedFixedFields, fixedPaths, fixedRuleCel, KINDS, lifecycleGaps, live, fixed, schemaPaths, validateResource } from '../../../src/api/index.js';
import { renderFieldsDoc } from '../../../src/api/render-fields-doc.js';
import { jsonEqual } from '../../../src/store/common/json.js';
import { createEmbeddedStore } from '../../../src/store/index.js';

describe('field lifecycle tables', () => {
  it.each(Object.keys(KINDS))('declares every spec field of %s, nested ones included, and nothing else', (kind) => {
    const def = KINDS[kind];
    expect(lifecycleGaps(def.spec, def.fields)).toEqual({ undeclared: [], unknown: [] });
  });

  it('finds a field left undeclared, however deep', () => {
    const spec = Type.Object({ a: Type.String(), b: Type.Object({ c: Type.String() }), d: Type.Array(Type.Object({ e: Type.String() })) });
    expect(schemaPaths(spec)).toEqual(['a', 'b', 'b.c', 'd', 'd[].e']);
    expect(lifecycleGaps(spec, { a: live('x'), b: live('x'), d: live('x') }).undeclared).toEqual(['b.c', 'd[].e']);
    expect(lifecycleGaps(spec, { a: live('x'), b: fixed('x'), d: live('x', true), z: live('x') })).toEqual({ undeclared: [], unknown: ['z'] });
  });

  it('docs/fields.md is current (run `npm run generate` when this fails)', () => {
    expect(readFileSync('docs/fields.md', 'utf8')).toBe(renderFieldsDoc());
  });

  it('names each changed fixed field, nested ones by their path', () => {
    const table = { host: fixed('x'), source: fixed('x'), 'source.url': fixed('x'), note: live('x') };
    expect(fixedPaths(table)).toEqual(['host', 'source']);
    expect(changedFixedFields(table, { host: 'a', source: { url: 'u' } }, { host: 'a', source: { url: 'v' }, note: 'n' }, jsonEqual)).toEqual(['source']);
    expect(changedFixedFields(table, { host: 'a' }, {}, jsonEqual)).toEqual(['host']);
    expect(fixedRuleCel('liveMigrate.destination')).toBe(
      '(has(self.liveMigrate) && has(self.liveMigrate.destination)) == (has(oldSelf.liveMigrate) && has(oldSelf.liveMigrate.destination))'
      + ' && (!(has(self.liveMigrate) && has(self.liveMigrate.destination)) || self.liveMigrate.destination == oldSelf.liveMigrate.destination)',
    );
  });

  it('puts one transition rule per fixed field into each CRD, with the same message the store gives', async () => {
    const { buildCrd } = await import('../../../src/api/crd.js');
    for (const def of Object.values(KINDS)) {
      type Rules = { 'x-kubernetes-validations'?: { rule: string; message: string }[] };
      const crd = buildCrd(def) as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Rules } } } }[] } };
      const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      const messages = (spec['x-kubernetes-validations'] ?? []).map((r) => r.message);
      for (const f of fixedPaths(def.fields)) expect(messages).toContain(`${f} is immutable`);
    }
  });

  it('the standalone store refuses a change of every fixed top-level field of a ZVolume, naming it', async () => {
    const store = createEmbeddedStore();
    const spec = { assignerId: 'G1', fcps: ['1a00'], targetWwpns: ['0x5005076812345678'], lun: '0x0000000000000001', osVersion: 'rhel8.6', multipath: false };
    const obj = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZVolume', metadata: { name: 'v1', namespace: 'default' }, spec };
    validateResource(obj);
    await store.create(obj);
    const key = { namespace: 'default', name: 'v1' };
    await expect(store.patch('ZVolume', key, { spec: { targetWwpns: ['0x5005076812345679'] } })).rejects.toMatchObject({ issues: [{ path: '/spec/targetWwpns', message: 'targetWwpns is immutable' }] });
    const changed = await store.patch('ZVolume', key, { spec: { multipath: true } });
    expect((changed.spec as { multipath: boolean }).multipath).toBe(true);
    await store.close();
  });
});
