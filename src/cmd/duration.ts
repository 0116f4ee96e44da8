import { InvalidInputError } from '../errors.js';

/** "15s", "500ms", "2m" or a bare number of seconds → milliseconds. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new InvalidInputError(`bad duration ${value} (use e.g. 15s, 500ms, 2m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000);
}
