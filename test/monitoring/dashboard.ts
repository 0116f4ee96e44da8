/** The metric names a Grafana dashboard's PromQL queries and template variables read. */

export interface Dashboard {
  panels: { title: string; targets?: { expr: string }[]; panels?: Dashboard['panels'] }[];
  templating?: { list: { query?: string | { query: string } }[] };
}

// PromQL words that look like identifiers but name no metric
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/** Metric names in one expression: identifiers that are neither functions, keywords, label names nor durations. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // grouping labels
    .replace(/\[[^\]]*\]/g, ''); // ranges
  const names = [...bare.matchAll(/(?<![\w.])([A-Za-z_:][A-Za-z0-9_:]*)\s*(\()?/g)] // not inside 10m or 1e3
    .filter((m) => m[2] === undefined && !KEYWORDS.has(m[1]!.toLowerCase()))
    .map((m) => m[1]!);
  return [...new Set(names)];
}

/** Every metric the dashboard reads: panel queries and `label_values(metric, label)` variables. */
export function dashboardMetricNames(d: Dashboard): string[] {
  const exprs: string[] = [];
  const walk = (panels: Dashboard['panels']): void => {
    for (const p of panels) {
      for (const t of p.targets ?? []) exprs.push(t.expr);
      walk(p.panels ?? []);
    }
  };
  walk(d.panels);
  const names = exprs.flatMap(metricNames);
  for (const v of d.templating?.list ?? []) {
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    const m = q ? /^label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)/.exec(q) : null;
    if (m) names.push(m[1]!);
  }
  return [...new Set(names)].sort();
}
