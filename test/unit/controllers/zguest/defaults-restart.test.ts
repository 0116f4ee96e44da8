import { pathsWith, ZGUEST_FIELDS } from '../../../../src/api/index.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { resolveGuestDefaults } from '../../../../src/controllers/zguest/defaults.js';
import { computeLoggedOnWith, DIRECTORY_VIEWS, pendingRestart, VIEWED_FIELDS } from '../../../../src/controllers/zguest/restart.js';
import { rewriteEntry } from '../../../../src/hypervisor/index.js';
import { anObservedGuest } from '../../../builders/zguest.js';

describe('resolveGuestDefaults: class, then ZHost spec.defaults, then built-in', () => {
  it.each([
    ['built-in alone', {}, { maxCpus: 32, maxMemory: '64G', profile: 'OSDFLT', diskPool: 'ECKD:POOL1', rootVdev: '0100' }],
    ['the ZHost over the built-in', { host: { maxCpus: 16, maxMemory: '8g', diskPool: 'FBA:P2', rootVdev: '200' } }, { maxCpus: 16, maxMemory: '8G', profile: 'OSDFLT', diskPool: 'FBA:P2', rootVdev: '0200' }],
    ['the class over the ZHost', { classValues: { maxCpus: 4, profile: 'prof2' }, host: { maxCpus: 16, profile: 'P3' } }, { maxCpus: 4, profile: 'PROF2' }],
    ['the spec over all', { spec: { maxCpus: 2 }, classValues: { maxCpus: 4 }, host: { maxCpus: 16 } }, { maxCpus: 2 }],
  ])('%s', (_label, input, expected) => {
    expect(resolveGuestDefaults({ ...input, builtIn: DEFAULT_GUEST_DEFAULTS })).toMatchObject(expected);
  });
});

describe('RestartRequired from the directory the guest logged on with', () => {
  it('has a directory view of every at-restart field but memory (the active configuration shows that one)', () => {
    expect(Object.keys(DIRECTORY_VIEWS).sort()).toEqual(VIEWED_FIELDS.sort());
    expect(pathsWith(ZGUEST_FIELDS, 'atRestart')).toContain('memory');
  });

  it('names the fields changed in the directory of a running guest, and nothing once it has logged on again', () => {
    const before = anObservedGuest();
    const recorded = computeLoggedOnWith({ recorded: undefined, before, after: before, loggedOn: false });
    const lines = rewriteEntry(before.directory.lines, { maxMemory: '8G', statements: { account: ['ACCOUNT ACCT2'], maxCpus: ['MACHINE ESA 12'] } });
    const after = { ...before, directory: { ...before.directory, lines, maxMemory: '8G' } };
    const kept = computeLoggedOnWith({ recorded, before: after, after, loggedOn: false });
    expect(pendingRestart(kept, after)).toEqual(['maxCpus', 'maxMemory', 'account']);
    const stopped = { ...after, power: 'off' as const, active: undefined };
    expect(computeLoggedOnWith({ recorded: kept, before: after, after: stopped, loggedOn: false })).toBeUndefined();
    const relogged = computeLoggedOnWith({ recorded: undefined, before: stopped, after, loggedOn: true });
    expect(pendingRestart(relogged, after)).toEqual([]);
  });

  it('takes a stop and start within one run as a new logon', () => {
    const g = anObservedGuest();
    const changed = { ...g, directory: { ...g.directory, lines: rewriteEntry(g.directory.lines, { statements: { account: ['ACCOUNT X'] } }) } };
    const recorded = computeLoggedOnWith({ recorded: undefined, before: g, after: g, loggedOn: false });
    expect(pendingRestart(computeLoggedOnWith({ recorded, before: changed, after: changed, loggedOn: true }), changed)).toEqual([]);
  });
});
