/** Label and namespace selection, the same for lists and watches of every store that filters itself. */
import type { Resource } from '../../api/index.js';
import type { ChangeType, LabelSelector } from '../port.js';

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

/** What a watch selects: one kind, optionally one namespace and a label selector. */
export interface WatchFilter {
  kind: string;
  namespace?: string;
  labelSelector?: LabelSelector;
}

export function matchesNamespace(obj: Resource, namespace: string | undefined): boolean {
  return !namespace || obj.metadata.namespace === namespace;
}

/** How a change looks through a label selector: a label change moves an object into or out of the selection. */
export function seenThrough(type: ChangeType, matchesNow: boolean, matchedBefore: boolean): ChangeType | undefined {
  if (type !== 'MODIFIED') return matchesNow ? type : undefined;
  if (matchesNow) return matchedBefore ? 'MODIFIED' : 'ADDED';
  return matchedBefore ? 'DELETED' : undefined;
}
