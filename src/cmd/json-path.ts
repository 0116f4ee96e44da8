/**
 * The subset of kubectl JSONPath that printer columns and `get -o jsonpath=` use: `.a.b`, `.a[0]`,
 * `.a[-1]`, `.a[*]`, `.a.*`, `['a.b']` and `.list[?(@.key=="value")].field`, from `.`, `@.` or `$.`.
 */
export function evalJsonPathAll(obj: unknown, path: string): unknown[] {
  const steps = path.trim().replace(/^[@$]/, '').match(/\['[^']*'\]|[^.[\]]+|\[[^\]]*\]/g) ?? [];
  return steps.reduce<unknown[]>((nodes, step) => nodes.flatMap((node) => stepInto(node, step)), [obj]);
}

/** The first match (a printer column's value). */
export function evalJsonPath(obj: unknown, path: string): unknown {
  return evalJsonPathAll(obj, path)[0];
}

function stepInto(node: unknown, step: string): unknown[] {
  if (node === undefined || node === null || typeof node !== 'object') return [];
  const filter = /^\[\?\(@\.(\w+)=="([^"]*)"\)\]$/.exec(step);
  if (filter) return Array.isArray(node) ? node.filter((e) => (e as Record<string, unknown>)?.[filter[1]!] === filter[2]) : [];
  if (step === '[*]' || step === '*') return Array.isArray(node) ? node : Object.values(node);
  const index = /^\[(-?\d+)\]$/.exec(step);
  if (index) return Array.isArray(node) ? present(node.at(Number(index[1]))) : [];
  if (Array.isArray(node)) return [];
  const quoted = /^\['([^']*)'\]$/.exec(step);
  return present((node as Record<string, unknown>)[quoted ? quoted[1]! : step]);
}

const present = (value: unknown): unknown[] => (value === undefined ? [] : [value]);
