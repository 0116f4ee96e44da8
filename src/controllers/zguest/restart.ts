/**
 * RestartRequired from facts: the atRestart fields (api/zguest-fields.ts) as the directory held them
 * when the running guest logged on (status.loggedOnWith, recorded by this reconciler), against the
 * directory now. A logoff ends the record, so the condition clears by itself after a stop/start.
 */
import { pathsWith, ZGUEST_FIELDS } from '../../api/index.js';
import { statementsOf, type GuestDirectory, type GuestState, type StatementFamily } from '../../hypervisor/index.js';
import { normalizeVdev } from './definition.js';

const family = (f: StatementFamily) => (dir: GuestDirectory) => statementsOf(dir.lines, f).join(' / ');

/**
 * How the directory shows each atRestart field. memory is left to the active configuration the host
 * reports (status.memory against spec), which is a better fact than a record.
 */
export const DIRECTORY_VIEWS: Record<string, (dir: GuestDirectory) => string> = {
  maxCpus: family('maxCpus'),
  maxMemory: (dir) => dir.maxMemory.toUpperCase(),
  profile: family('profile'),
  account: family('account'),
  ipl: family('ipl'),
  loaddev: family('loaddev'),
  dedicate: family('dedicate'),
  cpuPool: family('cpuPool'),
  share: (dir) => dir.share ?? '',
  relocationDomain: family('relocationDomain'),
  pciFunctions: family('pciFunctions'),
  disks: (dir) => dir.disks.map((d) => normalizeVdev(d.vdev)).sort().join(' '),
  nics: (dir) => dir.nics.map((n) => `${normalizeVdev(n.vdev)}:${n.macId ?? ''}:${n.vswitch ?? ''}`).sort().join(' '),
};

/** The top-level atRestart fields the views cover (a list item's field shows under its list). */
export const VIEWED_FIELDS = pathsWith(ZGUEST_FIELDS, 'atRestart').filter((p) => !p.includes('[]') && p !== 'memory');

export function viewDirectory(dir: GuestDirectory): Record<string, string> {
  return Object.fromEntries(Object.entries(DIRECTORY_VIEWS).map(([field, view]) => [field, view(dir)]));
}

/**
 * Pure: what the running guest logged on with. Off: nothing (the next logon reads the directory as it
 * is). Logged on by this run: the directory now. On with a record: the record stays. On without one:
 * the directory before this run acted (it may have changed the directory since the logon).
 */
export function computeLoggedOnWith(input: {
  recorded: Record<string, string> | undefined;
  before: GuestState | undefined;
  after: GuestState | undefined;
  /** this run logged the guest on (a start step) */
  loggedOn: boolean;
}): Record<string, string> | undefined {
  const { recorded, before, after } = input;
  if (!after || after.power === 'off') return undefined;
  if (input.loggedOn) return viewDirectory(after.directory);
  if (recorded) return recorded;
  return viewDirectory((before && before.power !== 'off' ? before : after).directory);
}

/** Pure: the atRestart fields whose directory value differs from the one the guest logged on with. */
export function pendingRestart(loggedOnWith: Record<string, string> | undefined, after: GuestState | undefined): string[] {
  if (!loggedOnWith || !after || after.power === 'off') return [];
  const now = viewDirectory(after.directory);
  return Object.keys(DIRECTORY_VIEWS).filter((f) => loggedOnWith[f] !== undefined && loggedOnWith[f] !== now[f]);
}
