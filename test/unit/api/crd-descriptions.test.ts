import { parse } from 'yaml';
import { renderCrds } from '../../../src/api/render-crds.js';

type Json = Record<string, unknown>;

/** The apiserver accepts nothing but `type: object` for the root's metadata; kubectl explain describes ObjectMeta itself. */
const ROOT_METADATA = '.metadata';

/** Paths of every property (spec, status and nested, through arrays and maps) that has no description. */
function undescribed(node: Json, path: string): string[] {
  const missing: string[] = [];
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    if (`${path}.${name}` === ROOT_METADATA) continue;
    const here = `${path}.${name}`;
    if (typeof child.description !== 'string' || child.description.trim() === '') missing.push(here);
    missing.push(...nested(child, here));
  }
  return missing;
}

function nested(node: Json, path: string): string[] {
  const found = undescribed(node, path);
  if (node.items) found.push(...nested(node.items as Json, `${path}[]`));
  if (node.additionalProperties && typeof node.additionalProperties === 'object') found.push(...nested(node.additionalProperties as Json, `${path}{}`));
  return found;
}

describe('CRD descriptions (what `kubectl explain` shows)', () => {
  const crds = [...renderCrds().values()].map((text) => parse(text) as Json);

  it('finds all thirteen kinds (nine zvm.dev, four Cluster API infrastructure)', () => {
    expect(crds).toHaveLength(13);
  });

  it.each(crds.map((crd) => [((crd.spec as Json).names as Json).kind as string, crd]))('%s: every field of spec and status has a description', (_kind, crd) => {
    const version = ((crd.spec as Json).versions as Json[])[0];
    const root = (version.schema as Json).openAPIV3Schema as Json;
    expect(Object.keys(root.properties as Json)).toEqual(expect.arrayContaining(['spec', 'status']));
    expect(undescribed(root, '')).toEqual([]);
    expect(root.properties).toMatchObject({ metadata: { type: 'object' } });
    expect(Object.keys((root.properties as Record<string, Json>).metadata)).toEqual(['type']);
  });

  it('the walk does catch a missing description', () => {
    const schema = { properties: { spec: { description: 'x', properties: { a: { type: 'array', description: 'y', items: { properties: { b: { type: 'string' } } } } } } } };
    expect(undescribed(schema, '')).toEqual(['.spec.a[].b']);
  });
});
