import { InvalidInputError } from '../errors.js';

/** Milliseconds per unit of a Go duration (time.ParseDuration, what kubectl and controller-runtime flags take). */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/;

/**
 * A duration as Go writes it — "90s", "1m30s", "1h", "500ms", "1.5h" — or a bare number of seconds
 * (what these flags took before) → whole milliseconds.
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const bad = () => new InvalidInputError(`bad duration "${value}" (use e.g. 90s, 1m30s, 1h, 500ms)`);
  if (text === '') throw bad();
  const part = new RegExp(PART.source, 'y');
  let ms = 0;
  while (part.lastIndex < text.length) {
    const m = part.exec(text);
    if (!m) throw bad();
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return Math.round(ms);
}

/** An age as kubectl prints it (its HumanDuration): 45s, 3m20s, 45m, 3h20m, 40h, 3d5h, 20d, 2y. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const pair = (a: number, ua: string, b: number, ub: string) => (b === 0 ? `${a}${ua}` : `${a}${ua}${b}${ub}`);
  if (s < 120) return `${s}s`;
  if (m < 10) return pair(m, 'm', s % 60, 's');
  if (h < 3) return `${m}m`;
  if (h < 8) return pair(h, 'h', m % 60, 'm');
  if (h < 48) return `${h}h`;
  if (d < 8) return pair(d, 'd', h % 24, 'h');
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}
