import type { Resource } from '../../api/index.js';
import type { LabelSelector } from '../port.js';

/** Every requirement holds: the label with that exact value; null: the label absent; notIn: present with another value. */
export function matchesLabels(obj: Resource, selector: LabelSelector | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => {
    if (value === null) return !(key in labels);
    if (typeof value === 'string') return labels[key] === value;
    return key in labels && !value.notIn.includes(labels[key]!);
  });
}

export function matchesNamespace(obj: Resource, namespace: string | undefined): boolean {
  return !namespace || obj.metadata.namespace === namespace;
}
