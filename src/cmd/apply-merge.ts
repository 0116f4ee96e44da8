/**
 * `apply` as kubectl's client-side apply does it for custom resources: a three-way JSON merge of the
 * last applied configuration (kept in the annotation kubectl uses), the new manifest and the live
 * object. A field the manifest sets wins; a field the last apply set and this one drops is removed;
 * a field someone else set (a `deploy` writing spec.image, REST, a controller) is kept. Lists are
 * replaced whole, as a JSON merge patch does.
 */
import type { Resource } from '../api/index.js';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `current` with what `modified` sets, less what `original` set and `modified` no longer does. */
export function merge3(original: unknown, modified: unknown, current: unknown): unknown {
  if (!isObj(modified) || !isObj(current)) return modified;
  const before = isObj(original) ? original : {};
  const out: Obj = { ...current };
  for (const k of Object.keys(before)) if (!(k in modified)) delete out[k];
  for (const [k, v] of Object.entries(modified)) out[k] = isObj(v) && isObj(current[k]) ? merge3(before[k], v, current[k]) : v;
  return out;
}

/** The configuration an apply records: the manifest without status and without the record itself. */
export function lastAppliedOf(obj: Resource): string {
  const annotations = { ...obj.metadata.annotations };
  delete annotations[LAST_APPLIED];
  const metadata = { ...obj.metadata, annotations: Object.keys(annotations).length ? annotations : undefined };
  return JSON.stringify({ ...obj, status: undefined, metadata });
}

/** The manifest to create, carrying its own last-applied record. */
export function withLastApplied(obj: Resource): Resource {
  return { ...obj, status: undefined, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [LAST_APPLIED]: lastAppliedOf(obj) } } };
}

/** The object an apply of `obj` makes of `current`: spec, labels and annotations merged three-way. */
export function appliedOnto(current: Resource, obj: Resource): Resource {
  const recorded = current.metadata.annotations?.[LAST_APPLIED];
  const original = recorded ? (safeParse(recorded) as Partial<Resource>) : {};
  const annotations = merge3(original.metadata?.annotations ?? {}, obj.metadata.annotations ?? {}, current.metadata.annotations ?? {}) as Record<string, string>;
  const labels = merge3(original.metadata?.labels ?? {}, obj.metadata.labels ?? {}, current.metadata.labels ?? {}) as Record<string, string>;
  return {
    ...current,
    spec: merge3(original.spec ?? {}, obj.spec ?? {}, current.spec ?? {}) as Resource['spec'],
    metadata: {
      ...current.metadata,
      labels: Object.keys(labels).length ? labels : undefined,
      annotations: { ...annotations, [LAST_APPLIED]: lastAppliedOf(obj) },
    },
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {}; // a hand-edited record: merge as if nothing had been applied before
  }
}
