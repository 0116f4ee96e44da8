/** Kind lookups, key and metadata rules both store adapters share. */
import { lookupKind, validateResource, type KindDefinition, type ObjectMeta, type Resource } from '../../api/index.js';
import { InvalidInputError } from '../../errors.js';
import type { ObjectKey } from '../port.js';

/** Namespaced objects addressed without a namespace live in `default`, as with kubectl. */
export const DEFAULT_NAMESPACE = 'default';

export function definitionOf(kind: string): KindDefinition {
  const def = lookupKind(kind);
  if (!def) throw new InvalidInputError(`unknown kind ${kind}`);
  return def;
}

/** The kind of an object a caller wants written; an unknown kind or a missing metadata is an invalid object. */
export function definitionOfObject(obj: Resource): KindDefinition {
  const known = typeof obj?.kind === 'string' && lookupKind(obj.kind) !== undefined;
  if (!known || typeof obj.metadata !== 'object' || obj.metadata === null) validateResource(obj);
  return definitionOf(obj.kind);
}

/** Cluster-scoped keys never carry a namespace; namespaced keys default to DEFAULT_NAMESPACE. */
export function scopedKey(def: KindDefinition, key: ObjectKey): ObjectKey {
  if (def.scope === 'Cluster') return { name: key.name };
  return { namespace: key.namespace || DEFAULT_NAMESPACE, name: key.name };
}

/** Drops empty collections, as the apiserver does, so that `labels: {}` and no labels compare equal. */
export function tidyMeta(meta: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = { ...meta };
  if (out.labels && Object.keys(out.labels).length === 0) delete out.labels;
  if (out.annotations && Object.keys(out.annotations).length === 0) delete out.annotations;
  if (out.finalizers && out.finalizers.length === 0) delete out.finalizers;
  return out;
}
