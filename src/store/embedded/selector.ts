import type { Resource } from '../../api/index.js';
import type { LabelSelector } from '../port.js';

/** Equality-based label selector: every given label present with that exact value; null: the label absent. */
export function matchesLabels(obj: Resource, selector: LabelSelector | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => (value === null ? !(key in labels) : labels[key] === value));
}

export function matchesNamespace(obj: Resource, namespace: string | undefined): boolean {
  return !namespace || obj.metadata.namespace === namespace;
}
