import { renderDirectory, STATEMENT_FAMILIES, statementsOf, type DirectoryRewrite, type GuestState, type StatementFamily } from '../../hypervisor/index.js';
import type { ResolvedZGuest } from './class.js';
import { buildDefinition, sameMemory, type GuestDefaults } from './definition.js';
import type { Ownership } from './ownership.js';

/** The spec field each statement family carries (api/zguest-fields.ts declares how each changes). */
export const FIELD_OF_FAMILY: Record<StatementFamily, string> = {
  profile: 'profile',
  maxCpus: 'maxCpus',
  account: 'account',
  cpuPool: 'cpuPool',
  relocationDomain: 'relocationDomain',
  pciFunctions: 'pciFunctions',
  ipl: 'ipl',
  loaddev: 'loaddev',
  dedicate: 'dedicate',
  comments: 'comments',
};

/** What the directory must change beyond CPUs, storage and SHARE, so that the entry says what the spec says. */
export type StatementEdit = Pick<DirectoryRewrite, 'maxMemory' | 'statements'>;

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Pure: the statement families whose statements differ from those the spec renders (renderDirectory,
 * the same text a new guest gets), and the max storage. An adopted guest keeps what its spec leaves out:
 * the spec only says what it gives.
 */
export function planStatementEdit(guest: ResolvedZGuest, observed: GuestState, defaults: GuestDefaults, ownership: Ownership): StatementEdit {
  const def = buildDefinition(guest, defaults);
  const desired = renderDirectory(def);
  const adopted = ownership === 'adopted';
  const given = (field: string) => (guest.spec as Record<string, unknown>)[field] !== undefined;
  const statements: Partial<Record<StatementFamily, string[]>> = {};
  for (const family of STATEMENT_FAMILIES) {
    if (adopted && !given(FIELD_OF_FAMILY[family])) continue;
    const want = statementsOf(desired, family);
    if (!sameList(want, statementsOf(observed.directory.lines, family))) statements[family] = want;
  }
  const edit: StatementEdit = Object.keys(statements).length > 0 ? { statements } : {};
  const keepMax = adopted && !given('maxMemory');
  if (!keepMax && !sameMemory(observed.directory.maxMemory, def.maxMemory)) edit.maxMemory = def.maxMemory.toUpperCase();
  return edit;
}

/** The CPU maximum the guest will have once the edit is written (MACHINE ESA). */
export function maxCpusAfter(edit: StatementEdit, observed: GuestState, wanted: number): number {
  return edit.statements?.maxCpus ? wanted : observed.directory.maxCpus;
}
