import type { TSchema } from '@sinclair/typebox';
import { GROUP, VERSION } from './common.js';
import type { KindDefinition } from './kinds.js';

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
export function toStructural(schema: TSchema | JsonSchema): JsonSchema {
  const s = schema as JsonSchema;
  if (Array.isArray(s.anyOf)) {
    const values = literalValues(s.anyOf as JsonSchema[]);
    if (!values) throw new Error('only unions of literals can become CRD schemas');
    const out: JsonSchema = { type: typeof values[0] === 'number' ? 'integer' : 'string', enum: values };
    if (s.description) out.description = s.description;
    if (s.default !== undefined) out.default = s.default;
    return out;
  }
  if ('const' in s) return { type: typeof s.const === 'number' ? 'integer' : 'string', enum: [s.const], ...(s.description ? { description: s.description } : {}) };
  if (s.type === undefined) return { 'x-kubernetes-preserve-unknown-fields': true, ...(s.description ? { description: s.description } : {}) };
  const out: JsonSchema = {};
  for (const k of KEPT) if (s[k] !== undefined) out[k] = s[k];
  if (s.type === 'object') convertObject(s, out);
  if (s.type === 'array') {
    out.items = toStructural(s.items as JsonSchema);
    if (s.uniqueItems) out['x-kubernetes-list-type'] = 'set';
  }
  return out;
}

function convertObject(s: JsonSchema, out: JsonSchema): void {
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, JsonSchema>).map(([k, v]) => [k, toStructural(v)]));
  }
  if (s.patternProperties) {
    const [value] = Object.values(s.patternProperties as Record<string, JsonSchema>);
    out.additionalProperties = toStructural(value);
  } else if (!s.properties) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (s.dependencies) out['x-kubernetes-validations'] = dependencyRules(s.dependencies as Record<string, string[]>);
}

/** CEL transition rules: the apiserver refuses an update that changes these fields. */
function withImmutableFields(spec: JsonSchema, fields: string[]): JsonSchema {
  if (fields.length === 0) return spec;
  const rules = fields.map((f) => ({
    rule: `has(self.${f}) == has(oldSelf.${f}) && (!has(self.${f}) || self.${f} == oldSelf.${f})`,
    message: `${f} is immutable`,
  }));
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
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: def.kind, listKind: `${def.kind}List`, plural: def.plural, singular: def.singular, shortNames: def.shortNames, categories: ['zvm'] },
      scope: def.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: `versioned schema of this object: ${GROUP}/${VERSION}` },
                kind: { type: 'string', description: `the REST resource this object represents: ${def.kind}` },
                // the apiserver refuses anything but type here (kubectl explain describes ObjectMeta itself)
                metadata: { type: 'object' },
                spec: withImmutableFields(withCrossFieldRules(toStructural(def.spec), def.crossFieldRules), def.immutableSpec ?? []),
                status: toStructural(def.status),
              },
            },
          },
        },
      ],
    },
  };
}
