/**
 * Objects of each zvm.dev kind with every spec field set, nested ones and list items too, generated from
 * the kind's one definition (the schema its field table is checked against: api/lifecycle.ts
 * schemaPaths). Fields that exclude each other (a ZImage's source.import and source.capture) cannot be
 * in one valid object: the kind then gets one object per side, each valid to validateResource (the
 * CRD's rules), and together they set every field. A value a string field's pattern needs comes from
 * SAMPLES; a field no sample fits, or a schema shape the generator does not know, fails the test that
 * uses it, naming the field.
 */
import { validateResource, type KindDefinition, type Resource } from '../../../src/api/index.js';
import { schemaPaths } from '../../../src/api/lifecycle.js';

type Schema = Record<string, unknown>;

/** Values tried in order for a string field, the first that fits its pattern and length wins. */
const SAMPLES = [
  'RT01', '0100', '1G', 'ECKD:POOL1', '02:00:00:00:00:01', 'ABCD', 'rhel9.2', 'example', '10.0.0.1', '10.0.0.0/24',
  'https://example.com/image.img', '1a00-1a01', 'sample-name', 'a', '1', 'SHA256:' + 'A'.repeat(43), 'RELATIVE 200',
  '0x5005076802100c1a', 'user@10.0.0.2', '/var/lib/zvm/images', '1000:0', '0123456789abcdef0123456789abcdef',
];

function stringValue(s: Schema, path: string): string {
  const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern) : undefined;
  const fits = (v: string) => (!pattern || pattern.test(v)) && v.length >= ((s.minLength as number) ?? 0) && v.length <= ((s.maxLength as number) ?? Infinity);
  if (typeof s.default === 'string' && fits(s.default)) return s.default;
  const found = SAMPLES.find(fits);
  if (found === undefined) throw new Error(`${path}: no sample value fits pattern ${String(s.pattern)}; add one to SAMPLES (test/e2e/conversion/every-field.ts)`);
  return found;
}

/** A value with every property set, for one schema. */
export function fullValue(schema: Schema, path: string): unknown {
  if (Array.isArray(schema.anyOf)) {
    const literal = (schema.anyOf as Schema[]).find((a) => 'const' in a);
    if (!literal) throw new Error(`${path}: a union of other than literals; teach test/e2e/conversion/every-field.ts its shape`);
    return literal.const;
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string': return stringValue(schema, path);
    case 'integer':
    case 'number': return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean': return true;
    case 'array': return [fullValue(schema.items as Schema, `${path}[]`)];
    case 'object': return objectValue(schema, path);
    case undefined: return { any: 'value' };
  }
  throw new Error(`${path}: schema type ${String(schema.type)}; teach test/e2e/conversion/every-field.ts its shape`);
}

function objectValue(schema: Schema, path: string): Record<string, unknown> {
  const props = schema.properties as Record<string, Schema> | undefined;
  if (props) return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fullValue(v, path ? `${path}.${k}` : k)]));
  const [value] = Object.values((schema.patternProperties as Record<string, Schema> | undefined) ?? {});
  return value ? { key1: fullValue(value, `${path}.*`) } : { any: 'value' };
}

/** The field paths a spec sets, in schemaPaths' notation (`disks[].size`). */
export function setPaths(value: unknown, schema: Schema, prefix = ''): string[] {
  const props = schema.type === 'object' ? (schema.properties as Record<string, Schema> | undefined) : undefined;
  if (!props || typeof value !== 'object' || value === null) return [];
  return Object.entries(props).flatMap(([name, child]) => {
    const v = (value as Record<string, unknown>)[name];
    if (v === undefined) return [];
    const path = prefix ? `${prefix}.${name}` : name;
    if (child.type === 'array') return [path, ...(v as unknown[]).flatMap((item) => setPaths(item, child.items as Schema, `${path}[]`))];
    return [path, ...setPaths(v, child, path)];
  });
}

/** Every optional field path of a schema (what an exclusive pair can drop). */
function optionalPaths(schema: Schema, prefix = ''): string[] {
  const props = schema.type === 'object' ? (schema.properties as Record<string, Schema> | undefined) : undefined;
  if (!props) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const inner = child.type === 'array' ? [] : optionalPaths(child, path);
    return required.has(name) ? inner : [path, ...inner];
  });
}

function without(value: unknown, path: string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const parts = path.split('.');
  let at: Record<string, unknown> | undefined = copy;
  for (const p of parts.slice(0, -1)) at = at?.[p] as Record<string, unknown> | undefined;
  if (at) delete at[parts.at(-1)!];
  return copy;
}

function isValid(def: KindDefinition, apiVersion: string, spec: unknown): boolean {
  try {
    validateResource({ apiVersion, kind: def.kind, metadata: { name: 'x' }, spec });
    return true;
  } catch {
    return false;
  }
}

/** The specs of a kind that together set every field: one when all fit in one valid object. */
export function everyFieldSpecs(def: KindDefinition, apiVersion: string): unknown[] {
  const spec = def.spec as unknown as Schema;
  const full = fullValue(spec, '');
  if (isValid(def, apiVersion, full)) return [full];
  // exclusive fields: the full object less one optional field, for each one whose absence makes it valid
  const valid = optionalPaths(spec).map((p) => without(full, p)).filter((s) => isValid(def, apiVersion, s));
  if (valid.length === 0) {
    try {
      validateResource({ apiVersion, kind: def.kind, metadata: { name: 'x' }, spec: full });
    } catch (err) {
      throw new Error(`${def.kind}: no valid object with every field but one: ${(err as Error).message}`, { cause: err });
    }
  }
  return valid;
}

/** Every field path of the kind's spec that no object sets (a test keeps it empty). */
export function unsetPaths(def: KindDefinition, specs: unknown[]): string[] {
  const set = new Set(specs.flatMap((s) => setPaths(s, def.spec as unknown as Schema)));
  return [...new Set([...schemaPaths(def.spec), ...Object.keys(def.fields)])].filter((p) => !set.has(p));
}

/** The objects of one kind at `apiVersion`, named `<singular>-<n>` (namespaced kinds in `namespace`). */
export function everyFieldObjects(def: KindDefinition, apiVersion: string, namespace: string): Resource[] {
  return everyFieldSpecs(def, apiVersion).map((spec, i) => ({
    apiVersion, kind: def.kind,
    metadata: { name: `${def.singular}-${i + 1}`, ...(def.scope === 'Namespaced' ? { namespace } : {}) },
    spec,
  }));
}
