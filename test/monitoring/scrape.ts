/** Reading Prometheus text from a live process's /metrics. */
import { METRIC_AREAS, type ProcessName } from '../../src/cmd/metrics-catalogue.js';
import { areaMetrics } from '../../src/cmd/render-metrics-doc.js';

/** The metric families a /metrics answer declares (its `# TYPE` lines). */
export function familiesOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]!));
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return res.text();
}

/** What the catalogue (and so docs/metrics.md) says a process exports. */
export function cataloguedFamilies(process: ProcessName): Set<string> {
  return new Set(METRIC_AREAS.filter((a) => a.processes.includes(process)).flatMap((a) => areaMetrics(a).map((m) => m.name)));
}

/** Names in `a` missing from `b`, sorted (for a readable failure). */
export function missing(a: Iterable<string>, b: Set<string>): string[] {
  return [...a].filter((n) => !b.has(n)).sort();
}
