/**
 * Kind names as the command line takes them (kind, plural, singular, short name), and a suggestion for
 * a typo, as kubectl answers `get zguset`.
 */
import { KINDS, resolveResource, type KindDefinition, type NamedResource } from '../api/kinds.js';
import { InvalidInputError } from '../errors.js';

/** Every name a kind answers to, lower case. */
export function kindNames(): string[] {
  return Object.values(KINDS).flatMap((d) => [d.singular, d.plural, ...d.shortNames]);
}

/** The kind, or an error naming the closest name when there is one (at most two edits away). */
export function kindOrSuggest(name: string): KindDefinition {
  return resourceOrSuggest(name).def;
}

/** The kind and the version the name gives (`zguests.v1alpha1.zvm.dev`), or the same error as kindOrSuggest. */
export function resourceOrSuggest(name: string): NamedResource {
  const named = resolveResource(name);
  if (named) return named;
  const [best] = kindNames()
    .map((n) => ({ n, d: editDistance(name.toLowerCase(), n) }))
    .sort((a, b) => a.d - b.d);
  const hint = best && best.d <= 2 ? `; did you mean "${best.n}"?` : ` (kinds: ${Object.values(KINDS).map((d) => d.singular).join(', ')})`;
  return fail(`the server doesn't have a resource type "${name}"${hint}`);
}

function fail(message: string): never {
  throw new InvalidInputError(message);
}

/** Levenshtein distance, with a transposition counting as one edit (zguset → zguest). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
