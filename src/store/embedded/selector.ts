import type { Resource } from '../../api/index.js';

/** Equality-based label selector: every given label must be present with that exact value. */
export function matchesLabels(obj: Resource, selector: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

export function matchesNamespace(obj: Resource, namespace: string | undefined): boolean {
  return !namespace || obj.metadata.namespace === namespace;
}
