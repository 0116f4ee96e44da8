/**
 * Statement families of a user directory entry: the statements that carry one guest field (ACCOUNT,
 * MACHINE, INCLUDE, IPL, ...). A family is compared and replaced as a whole, so a changed field is one
 * edit of the entry that keeps every other statement (MDISK, NICDEF, statements we do not manage) as it was.
 */
import { isComment, tokensOf } from './statements.js';

/** The owner comment marks who created the entry; it is never part of the comments family. */
const OWNER_COMMENT = /^\*\s*ZVM-OPERATOR OWNER\b/i;

const starts = (...words: string[]) => (t: string[]) => words.every((w, i) => t[i] === w);

/** Which statements carry each family (tokens upper-cased). */
const MEMBERS = {
  profile: starts('INCLUDE'),
  maxCpus: starts('MACHINE'),
  account: starts('ACCOUNT'),
  cpuPool: starts('COMMAND', 'SCHEDULE'),
  relocationDomain: starts('COMMAND', 'SET', 'VMRELOCATE'),
  pciFunctions: starts('COMMAND', 'ATTACH', 'PCIF'),
  ipl: (t: string[]) => t[0] === 'IPL' || (t[0] === 'LOADDEV' && t[1] === 'DEVICE'),
  loaddev: (t: string[]) => t[0] === 'LOADDEV' && t[1] !== 'DEVICE',
  dedicate: starts('DEDICATE'),
} as const;

export type StatementFamily = keyof typeof MEMBERS | 'comments';

export const STATEMENT_FAMILIES: readonly StatementFamily[] = [...(Object.keys(MEMBERS) as (keyof typeof MEMBERS)[]), 'comments'];

function isMember(family: StatementFamily, line: string): boolean {
  if (family === 'comments') return isComment(line) && !OWNER_COMMENT.test(line);
  return !isComment(line) && MEMBERS[family](tokensOf(line));
}

/** The family's statements, upper case with single blanks (how a comparison sees them). */
export function statementsOf(lines: readonly string[], family: StatementFamily): string[] {
  return lines.filter((l) => isMember(family, l)).map((l) => l.trim().replace(/\s+/g, ' ').toUpperCase());
}

/**
 * The entry with the family's statements replaced: where the old ones stood, else where CP expects
 * them (INCLUDE right after USER, comments before the owner comment, the rest before the first device
 * statement).
 */
export function withStatements(lines: readonly string[], family: StatementFamily, statements: readonly string[]): string[] {
  const at = lines.findIndex((l) => isMember(family, l));
  const kept = lines.filter((l) => !isMember(family, l));
  const where = at >= 0 ? lines.slice(0, at).filter((l) => !isMember(family, l)).length : insertionPoint(kept, family);
  return [...kept.slice(0, where), ...statements, ...kept.slice(where)];
}

function insertionPoint(lines: readonly string[], family: StatementFamily): number {
  if (family === 'profile') return Math.min(1, lines.length);
  if (family === 'comments') {
    const owner = lines.findIndex((l) => OWNER_COMMENT.test(l));
    return owner >= 0 ? owner : lines.length;
  }
  const device = lines.findIndex((l) => /^(MDISK|NICDEF|LINK|SPOOL|CONSOLE|\*)/i.test(l.trim()));
  return device >= 0 ? device : lines.length;
}
