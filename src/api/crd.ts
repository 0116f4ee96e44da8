import type { TSchema } from '@sinclair/typebox';
import { DEPRECATED_VERSION, deprecationWarning, DEVICE_NUMBER, QUOTE_DEVICE_NUMBER, STORAGE_VERSION } from './common.js';
import { groupOf, servedVersionsOf, type KindDefinition } from './kinds.js';
import { fixedMessage, fixedPaths, fixedRuleCel, type LifecycleTable } from './lifecycle.js';

type JsonSchema = Record<string, unknown>;

/** Keywords a structural CRD schema accepts as they are. */
const KEPT = ['type', 'description', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default', 'enum', 'format', 'minItems', 'maxItems', 'required'];

function literalValues(anyOf: JsonSchema[]): unknown[] | undefined {
  return anyOf.every((s) => 'const' in s) ? anyOf.map((s) => s.const) : undefined;
}

/** Structural rules forbid `dependencies`; CEL says the same thing in a form the apiserver enforces. */
function dependencyRules(deps: Record<string, string[]>): JsonSchema[] {
  return Object.entries(deps).flatMap(([field, needed]) =>
    needed.map((n) => ({ rule: `!has(self.${field}) || has(self.${n})`, message: `${n} is required when ${field} is set` })),
  );
}

/**
 * Converts a TypeBox schema to a structural OpenAPI v3 schema: literal unions become enums,
 * records become additionalProperties, unknown values preserve unknown fields, and keywords the
 * apiserver rejects (const, uniqueItems, dependencies, additionalProperties:false) are rewritten.
 */
export interface StructuralOptions {
  /**
   * Device numbers as int-or-string with the "quote it" rule (spec). Off for status: the controller
   * writes it, and each such rule in a list counts against the CRD's CEL cost budget.
   */
  explainDeviceNumbers?: boolean;
}

export function toStructural(schema: TSchema | JsonSchema, opts: StructuralOptions = { explainDeviceNumbers: true }): JsonSchema {
  const s = schema as JsonSchema;
  if (Array.isArray(s.anyOf)) {
    const values = literalValues(s.anyOf as JsonSchema[]);
    if (!values) throw new Error('only unions of literals can become CRD schemas');
    const out: JsonSchema = typeof values[0] === 'number' ? { type: 'integer', enum: values } : oneOfStrings(values as string[], s.description as string | undefined);
    if (s.default !== undefined) out.default = s.default;
    return out;
  }
  if (s.type === 'string' && s[DEVICE_NUMBER] && opts.explainDeviceNumbers) return deviceNumber(s);
  if ('const' in s) return { type: typeof s.const === 'number' ? 'integer' : 'string', enum: [s.const], ...(s.description ? { description: s.description } : {}) };
  if (s.type === undefined) return { 'x-kubernetes-preserve-unknown-fields': true, ...(s.description ? { description: s.description } : {}) };
  const out: JsonSchema = {};
  for (const k of KEPT) if (s[k] !== undefined) out[k] = s[k];
  if (s.type === 'object') convertObject(s, out, opts);
  if (s.type === 'array') {
    out.items = toStructural(s.items as JsonSchema, opts);
    if (s.uniqueItems) out['x-kubernetes-list-type'] = 'set';
  }
  return out;
}

/**
 * A choice of strings as a pattern, not an enum: a wrong value is then one "should match" line; an
 * enum violation also makes the apiserver add a "some validation rules were not checked" line.
 */
function oneOfStrings(values: string[], description: string | undefined): JsonSchema {
  const listed = values.every((v) => description?.includes(v));
  const text = listed ? description : `${description ? `${description}; ` : ''}one of ${values.join(', ')}`;
  return { type: 'string', pattern: `^(${values.join('|')})$`, ...(text ? { description: text } : {}) };
}

/** Int-or-string so that an unquoted number reaches the CEL rule that explains it (a type error would not). */
function deviceNumber(s: JsonSchema): JsonSchema {
  return {
    'x-kubernetes-int-or-string': true,
    ...(s.description ? { description: s.description } : {}),
    pattern: s.pattern,
    'x-kubernetes-validations': [{ rule: 'type(self) == string', message: QUOTE_DEVICE_NUMBER }],
  };
}

function convertObject(s: JsonSchema, out: JsonSchema, opts: StructuralOptions): void {
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, JsonSchema>).map(([k, v]) => [k, toStructural(v, opts)]));
  }
  if (s.patternProperties) {
    const [value] = Object.values(s.patternProperties as Record<string, JsonSchema>);
    out.additionalProperties = toStructural(value, opts);
  } else if (!s.properties) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (s.dependencies) out['x-kubernetes-validations'] = dependencyRules(s.dependencies as Record<string, string[]>);
}

/** CEL transition rules from the kind's lifecycle table: the apiserver refuses an update that changes a fixed field. */
function withFixedFields(spec: JsonSchema, table: LifecycleTable): JsonSchema {
  const fields = fixedPaths(table);
  if (fields.length === 0) return spec;
  const rules = fields.map((f) => ({ rule: fixedRuleCel(f), message: fixedMessage(f) }));
  return { ...spec, 'x-kubernetes-validations': [...((spec['x-kubernetes-validations'] as JsonSchema[]) ?? []), ...rules] };
}

/** Cross-field rules of the kind as CEL validations on spec (validators.ts runs the same rules). */
function withCrossFieldRules(spec: JsonSchema, rules: KindDefinition['crossFieldRules']): JsonSchema {
  if (!rules || rules.length === 0) return spec;
  const cel = rules.map((r) => ({ rule: r.cel, message: r.message }));
  return { ...spec, 'x-kubernetes-validations': [...((spec['x-kubernetes-validations'] as JsonSchema[]) ?? []), ...cel] };
}

/** The CustomResourceDefinition for one kind, generated from its single TypeBox definition. */
export function buildCrd(def: KindDefinition): JsonSchema {
  const group = groupOf(def);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${group}`, ...(def.crdLabels ? { labels: def.crdLabels } : {}) },
    spec: {
      group,
      names: { kind: def.kind, listKind: `${def.kind}List`, plural: def.plural, singular: def.singular, shortNames: def.shortNames, categories: def.categories ?? ['zvm'] },
      scope: def.scope,
      // a deep copy per version: YAML writers would otherwise alias what two versions share
      versions: servedVersionsOf(def).map((version) => structuredClone({
        name: version,
        served: true,
        storage: version === (def.version ?? STORAGE_VERSION),
        // kubectl prints it as `Warning: …` on every request naming this version
        ...(!def.version && version === DEPRECATED_VERSION ? { deprecated: true, deprecationWarning: deprecationWarning(def.kind) } : {}),
        subresources: def.scale ? { status: {}, scale: def.scale } : { status: {} },
        additionalPrinterColumns: def.printerColumns,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string', description: `versioned schema of this object: ${group}/${version}` },
              kind: { type: 'string', description: `the REST resource this object represents: ${def.kind}` },
              // the apiserver refuses anything but type here (kubectl explain describes ObjectMeta itself)
              metadata: { type: 'object' },
              spec: withFixedFields(withCrossFieldRules(toStructural(def.spec), def.crossFieldRules), def.fields),
              status: toStructural(def.status, { explainDeviceNumbers: false }),
            },
          },
        },
      })),
      // our kinds: one schema for every version, the apiserver relabels apiVersion, no webhook is needed
      ...(def.version ? {} : { conversion: { strategy: 'None' } }),
    },
  };
}
