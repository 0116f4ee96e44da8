import type { SmapiParams } from '../smapi/types.js';
import { normalizeVdev } from '../directory/statements.js';
import { Syntax, syntaxFault } from './fault.js';

/** CP's userid characters (docs/smapi.md §5.4). */
const USERID_RE = /^[A-Z0-9@#$_-]{1,8}$/;

/** Validated access to a request's parameters; every violation is an rc 24 SimFault. */
export class Params {
  constructor(
    readonly fn: string,
    private readonly params: SmapiParams,
  ) {}

  /** A string parameter, trimmed (feilong sends ' IMMED' and ' OWNER=YES'). */
  str(name: string, index: number, opts: { min?: number; max?: number } = {}): string {
    const raw = this.params[name];
    if (raw !== undefined && raw !== null && typeof raw !== 'string') {
      throw syntaxFault(this.fn, index, Syntax.unrecognized, `${name} must be a string`);
    }
    const v = (raw ?? '').trim();
    if (opts.min !== undefined && v.length < opts.min) {
      throw syntaxFault(this.fn, index, v.length === 0 ? Syntax.missing : Syntax.tooShort, `${name} is too short`);
    }
    if (opts.max !== undefined && v.length > opts.max) {
      throw syntaxFault(this.fn, index, Syntax.tooLong, `${name} is too long`);
    }
    return v;
  }

  int(name: string, index: number, opts: { min?: number; max?: number; fallback?: number } = {}): number {
    const raw = this.params[name] ?? opts.fallback;
    if (raw === undefined) throw syntaxFault(this.fn, index, Syntax.missing, `${name} is missing`);
    if (typeof raw !== 'number' || !Number.isInteger(raw)) {
      throw syntaxFault(this.fn, index, Syntax.notDecimal, `${name} must be an integer`);
    }
    if (opts.min !== undefined && raw < opts.min) throw syntaxFault(this.fn, index, Syntax.belowMin, `${name} too small`);
    if (opts.max !== undefined && raw > opts.max) throw syntaxFault(this.fn, index, Syntax.aboveMax, `${name} too large`);
    return raw;
  }

  list(name: string, index: number): string[] {
    const raw = this.params[name] ?? [];
    if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) {
      throw syntaxFault(this.fn, index, Syntax.unrecognized, `${name} must be a list of strings`);
    }
    return raw as string[];
  }

  /** A 1–4 hex digit device number, normalized to 4 upper-case digits. */
  vdev(name: string, index: number): string {
    const v = this.str(name, index, { min: 1, max: 4 });
    const n = normalizeVdev(v);
    if (!n) throw syntaxFault(this.fn, index, Syntax.notHex, `${name} must be hexadecimal`);
    return n;
  }

  /** A userid parameter (1–8 of CP's userid characters), upper case. */
  userid(name: string, index: number): string {
    return checkUserid(this.fn, this.str(name, index, { min: 1, max: 8 }).toUpperCase(), index);
  }
}

/** Validates a userid (the target is parameter 1); returns it upper case. */
export function checkUserid(fn: string, userid: string, index = 1): string {
  const u = userid.trim().toUpperCase();
  if (u.length === 0) throw syntaxFault(fn, index, Syntax.missing, 'userid is missing');
  if (u.length > 8) throw syntaxFault(fn, index, Syntax.tooLong, 'userid is longer than 8');
  if (!USERID_RE.test(u)) throw syntaxFault(fn, index, Syntax.charset, 'userid has invalid characters');
  return u;
}

/** `key=value` items (kvlist) → map with upper-case keys and trimmed values. */
export function keywordMap(items: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq > 0) out.set(item.slice(0, eq).trim().toUpperCase(), item.slice(eq + 1).trim());
  }
  return out;
}
