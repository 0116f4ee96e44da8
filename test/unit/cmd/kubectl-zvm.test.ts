/** The pure parts of `kubectl zvm`: console tails, progress lines, the host table, error lines, completion. */
import { OWNER_UID_ANNOTATION, type ZGuest } from '../../../src/api/index.js';
import { computeNewLines } from '../../../src/cmd/kubectl-zvm/console.js';
import { describeProgress } from '../../../src/cmd/kubectl-zvm/follow.js';
import { computeHostRows } from '../../../src/cmd/kubectl-zvm/guests.js';
import { createProgressReporter, formatProgressBar, formatProgressLine } from '../../../src/cmd/kubectl-zvm/progress.js';
import { completeArgs } from '../../../src/cmd/kubectl-zvm/program.js';
import { describeError } from '../../../src/cmd/kubectl-zvm/run.js';
import { FieldOwnedError } from '../../../src/store/kube/field-owners.js';

const MiB = 1024 * 1024;

describe('console --follow: the lines not shown yet', () => {
  it('prints only what was appended', () => {
    expect(computeNewLines(['a', 'b'], ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
    expect(computeNewLines([], ['a'])).toEqual(['a']);
    expect(computeNewLines(['a', 'b'], ['a', 'b'])).toEqual([]);
  });

  it('copes with the spool dropping its oldest lines', () => {
    expect(computeNewLines(['a', 'b', 'c'], ['b', 'c', 'd'])).toEqual(['d']);
    expect(computeNewLines(['a', 'b', 'c'], ['x', 'y'])).toEqual(['x', 'y']);
  });
});

describe('upload progress', () => {
  const sample = { bytes: 50 * MiB, total: 200 * MiB, startedAt: 0, now: 5000 };

  it('a plain line has bytes, total, share, rate and ETA', () => {
    expect(formatProgressLine(sample)).toBe('upload: 50.0 MiB / 200.0 MiB (25%) at 10.0 MiB/s ETA 15s');
    expect(formatProgressLine({ ...sample, bytes: 200 * MiB, now: 20_000 })).toBe('upload: 200.0 MiB / 200.0 MiB (100%) at 10.0 MiB/s');
    expect(formatProgressLine({ ...sample, bytes: 2 * MiB, now: 5000 })).toMatch(/ETA 8m15s$/);
  });

  it('a terminal gets a bar', () => {
    expect(formatProgressBar(sample)).toBe('[#######.......................] 50.0 MiB / 200.0 MiB (25%) at 10.0 MiB/s ETA 15s');
  });

  it('off a terminal: one line per tenth, and the last one always', () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    let t = 0;
    const p = createProgressReporter(100, stream, () => t);
    for (let b = 1; b <= 100; b += 1) {
      t += 10;
      p.update(b);
    }
    p.done(100);
    expect(written.length).toBe(11);
    expect(written.every((l) => l.endsWith('\n') && l.startsWith('upload: '))).toBe(true);
    expect(written.at(-1)).toContain('(100%)');
  });

  it('on a terminal: redraws in place and ends the line when done', () => {
    const written: string[] = [];
    const stream = { isTTY: true, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    let t = 0;
    const p = createProgressReporter(100, stream, () => t);
    p.update(10);
    t = 1000;
    p.update(50);
    p.done(100);
    expect(written.every((l) => l.startsWith('\r['))).toBe(true);
    expect(written.at(-1)?.endsWith('\n')).toBe(true);
  });
});

describe('status lines while following', () => {
  it('phase and progress summary, or the phase alone', () => {
    expect(describeProgress({ phase: 'Importing', progress: { summary: 'import: 1.0 MiB' } })).toBe('Importing: import: 1.0 MiB');
    expect(describeProgress(undefined)).toBe('Pending');
    expect(describeProgress({ phase: 'Failed', message: 'bad header' })).toBe('Failed: bad header');
  });
});

describe('guests HOST', () => {
  const guest = (name: string, userid: string, uid: string, host?: string): ZGuest => ({
    apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: 'ns', uid }, spec: { userid, vcpus: 1, memory: '1G', ...(host ? { host } : {}) },
  } as ZGuest);

  it('joins what the host reports with the ZGuests of that host', () => {
    const rows = computeHostRows('default', [
      { userid: 'A1', defined: true, power: 'on', ownerUid: 'UID-A' },
      { userid: 'B1', defined: true, power: 'off', ownerUid: 'UID-GONE' },
      { userid: 'C1', defined: true, power: 'off' },
    ], [guest('a', 'a1', 'uid-a'), guest('d', 'D1', 'uid-d'), guest('e', 'A1', 'uid-e', 'other')]);
    expect(rows).toEqual([
      ['A1', 'yes', 'on', 'ours', 'ns/a'],
      ['B1', 'yes', 'off', 'ours (uid uid-gone, no ZGuest)', ''],
      ['C1', 'yes', 'off', 'none', ''],
      ['D1', 'no', '-', '-', 'ns/d'],
    ]);
  });

  it('counts as ours a guest whose mark a copy of its ZGuest names in its annotation (a move, a restore)', () => {
    const copy = { ...guest('a', 'A1', 'uid-new'), metadata: { name: 'a', namespace: 'ns', uid: 'uid-new', annotations: { [OWNER_UID_ANNOTATION]: 'uid-a' } } };
    expect(computeHostRows('default', [{ userid: 'A1', defined: true, power: 'on', ownerUid: 'UID-A' }], [copy])).toEqual([['A1', 'yes', 'on', 'ours', 'ns/a']]);
  });
});

describe('errors and completion', () => {
  it('a foreign field owner is one line naming the field, the owner and the way out', () => {
    const err = new FieldOwnedError('ZGuest ns/g', [{ manager: 'argocd-controller', operation: 'Apply', fields: ['spec.powerState'] }]);
    expect(describeError(err)).toBe('conflict: spec.powerState (managed by "argocd-controller"); change it where it is managed, or pass --take-over');
  });

  it('completes verbs, and nothing from files', () => {
    expect(completeArgs(['re'])).toEqual(['restart', 'reboot', ':4']);
    expect(completeArgs([])).toContain('image-upload');
    expect(completeArgs(['start', 'x'])).toEqual([':4']);
  });
});
