/** `-l` as kubectl takes it: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-separated (all must hold). */
import { InvalidInputError } from '../errors.js';

type Requirement = (labels: Record<string, string>) => boolean;

export function parseSelector(selector: string): Requirement {
  const parts = selector.match(/[^,(]+(\([^)]*\))?/g)?.map((p) => p.trim()).filter(Boolean) ?? [];
  const reqs = parts.map(requirement);
  return (labels) => reqs.every((r) => r(labels));
}

function requirement(part: string): Requirement {
  let m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(part);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = /^([\w./-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = list.split(',').map((v) => v.trim());
    return op === 'in' ? (l) => key in l && values.includes(l[key]!) : (l) => !(key in l) || !values.includes(l[key]!);
  }
  m = /^(!?)([\w./-]+)$/.exec(part);
  if (m) {
    const key = m[2]!;
    return m[1] ? (l) => !(key in l) : (l) => key in l;
  }
  throw new InvalidInputError(`bad label selector "${part}": use key=value, key!=value, key, !key or key in (a,b)`);
}
