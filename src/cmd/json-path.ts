/**
 * The subset of kubectl JSONPath that printer columns use: `.a.b`, `.a[0]` and
 * `.list[?(@.key=="value")].field`.
 */
export function evalJsonPath(obj: unknown, path: string): unknown {
  let current: unknown = obj;
  const steps = path.replace(/^\./, '').match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  for (const step of steps) {
    if (current === undefined || current === null) return undefined;
    const filter = /^\[\?\(@\.(\w+)=="([^"]*)"\)\]$/.exec(step);
    if (filter) {
      current = Array.isArray(current) ? current.find((e) => (e as Record<string, unknown>)?.[filter[1]] === filter[2]) : undefined;
    } else if (/^\[\d+\]$/.test(step)) {
      current = Array.isArray(current) ? current[Number(step.slice(1, -1))] : undefined;
    } else {
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}
