/** One reported figure: its value, the target it is held to, and whether it meets it. */
export interface Target {
  op: '<=' | '>=' | '<';
  value: number;
}

export interface Figure {
  id: string;
  name: string;
  /** null when not measured (n/a) */
  value: number | null;
  unit: string;
  target?: Target;
  detail?: string;
  /** decimals in the table; default by magnitude (2 below 10), too few for figures like 0.008 */
  digits?: number;
  /** why the figure is not valid (ran out of time, counted nothing): the verdict is a miss whatever the value */
  invalid?: string;
}

export type Verdict = 'pass' | 'miss' | 'n/a' | 'info';

export function verdictOf(f: Figure): Verdict {
  if (f.invalid) return 'miss';
  if (f.value === null) return 'n/a';
  if (!f.target) return 'info';
  const { op, value } = f.target;
  const ok = op === '<=' ? f.value <= value : op === '>=' ? f.value >= value : f.value < value;
  return ok ? 'pass' : 'miss';
}

export function formatValue(v: number | null, unit: string, fixed?: number): string {
  if (v === null) return 'n/a';
  const digits = fixed ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  return `${v.toFixed(digits)} ${unit}`.trim();
}

export function formatTarget(t: Target | undefined, unit: string): string {
  return t ? `${t.op} ${t.value} ${unit}`.trim() : '—';
}

/** The human-readable table printed at the end of a run. */
export function renderTable(figures: Figure[]): string {
  const rows = figures.map((f) => [f.name, formatValue(f.value, f.unit, f.digits), formatTarget(f.target, f.unit), verdictOf(f)]);
  const head = ['figure', 'value', 'target', 'verdict'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The p-th percentile of ascending-sorted samples (0 for none). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
