import { OWNER_UID_ANNOTATION } from '../../../../src/api/index.js';
import { withStatusOfCopy } from '../../../../src/controllers/zguest/copied.js';
import { computeOwnership, findOlderClaim } from '../../../../src/controllers/zguest/ownership.js';
import { mapHostToGuests, mapUseridRivals } from '../../../../src/controllers/zguest/watches.js';
import { aGuest, anObservedGuest } from '../../../builders/zguest.js';

const me = aGuest({ userid: 'linux01' }, { uid: 'b', creationTimestamp: '2026-01-02T00:00:00Z' });

describe('findOlderClaim', () => {
  it.each([
    ['an older ZGuest in another namespace claims the userid', aGuest({}, { name: 'x', namespace: 'ns2', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }), 'ns2/x'],
    ['the same creation time falls back to the uid', aGuest({}, { name: 'x', uid: 'a', creationTimestamp: '2026-01-02T00:00:00Z' }), 'default/x'],
    ['a younger ZGuest does not', aGuest({}, { name: 'x', uid: 'c', creationTimestamp: '2026-01-03T00:00:00Z' }), undefined],
    ['a ZGuest on another host does not', aGuest({ host: 'other' }, { name: 'x', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }), undefined],
    ['a ZGuest with another userid does not', aGuest({ userid: 'LINUX02' }, { name: 'x', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }), undefined],
    ['the explicit default host is the same host', aGuest({ host: 'default' }, { name: 'x', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }), 'default/x'],
  ])('%s', (_label, other, expected) => {
    expect(findOlderClaim(me, [me, other])).toBe(expected);
  });

  it('lets proof on the host beat age: the ZGuest named by the owner comment owns the userid', () => {
    const older = aGuest({}, { name: 'older', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(findOlderClaim(me, [older, me], 'B')).toBeUndefined();
    const younger = aGuest({}, { name: 'younger', uid: 'c', creationTimestamp: '2026-01-03T00:00:00Z' });
    expect(findOlderClaim(me, [younger, me], 'C')).toBe('default/younger');
  });

  it('falls back to age when the owner comment names no live ZGuest', () => {
    const older = aGuest({}, { name: 'older', uid: 'a', creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(findOlderClaim(me, [older, me], 'GONE')).toBe('default/older');
  });

  it('among copies of one object naming the same mark (a move, a restore), lets the oldest prove it', () => {
    const copy = (uid: string, at: string) => aGuest({}, { name: `copy-${uid}`, uid, creationTimestamp: at, annotations: { [OWNER_UID_ANNOTATION]: 'orig' } });
    const first = copy('p', '2026-01-01T00:00:00Z');
    const second = copy('q', '2026-01-05T00:00:00Z');
    expect(findOlderClaim(first, [first, second], 'ORIG')).toBeUndefined();
    expect(findOlderClaim(second, [first, second], 'ORIG')).toBe('default/copy-p');
    // a copy proves the guest against an older ZGuest that does not
    expect(findOlderClaim(second, [me, second], 'ORIG')).toBeUndefined();
    expect(findOlderClaim(me, [me, second], 'ORIG')).toBe('default/copy-q');
  });

  it('names the oldest of several claimants', () => {
    const older = aGuest({}, { name: 'older', uid: 'a', creationTimestamp: '2026-01-01T12:00:00Z' });
    const oldest = aGuest({}, { name: 'oldest', uid: 'z', creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(findOlderClaim(me, [older, me, oldest])).toBe('default/oldest');
  });
});

describe('enqueue mappers', () => {
  const a = aGuest({}, { name: 'a', uid: 'a' });
  const b = aGuest({ userid: 'linux01' }, { name: 'b', namespace: 'ns2', uid: 'b' });
  const c = aGuest({ userid: 'LINUX02', host: 'h2' }, { name: 'c', uid: 'c' });

  it('maps a claimant to the other claimants of its userid on its host', () => {
    expect(mapUseridRivals(() => [a, b, c])(a)).toEqual([{ namespace: 'ns2', name: 'b' }]);
  });

  it('maps a ZHost to the guests placed on it', () => {
    const host = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h2' }, spec: {} };
    expect(mapHostToGuests(() => [a, b, c])(host)).toEqual([{ namespace: 'default', name: 'c' }]);
  });
});

describe('a copy of a ZGuest made in another store (clusterctl move, a restore)', () => {
  const copy = (meta = {}) => aGuest({ image: 'rhel9' }, { uid: 'uid-2', annotations: { [OWNER_UID_ANNOTATION]: 'uid-1', 'zvm.dev/reboot-requested-at': '2026-01-01T00:00:00Z' }, ...meta });

  it('owns the guest its annotation names, not one its own uid would', () => {
    expect(computeOwnership(copy(), anObservedGuest(), undefined)).toBe('owned');
    expect(computeOwnership(copy(), anObservedGuest({ owner: 'uid-2' }), undefined)).toBe('foreign');
  });

  it('gets its status back from the spec: the image deployed, the tokens handled', () => {
    expect(withStatusOfCopy(copy(), anObservedGuest()).status).toEqual({ deployedImage: 'rhel9', lastHandledRebootAt: '2026-01-01T00:00:00Z' });
  });

  it('keeps the status of a guest that has one, or that owns through its own uid, or whose entry is gone', () => {
    const reconciled = copy({ status: { phase: 'Running' } });
    expect(withStatusOfCopy(reconciled, anObservedGuest())).toBe(reconciled);
    const original = aGuest({ image: 'rhel9' });
    expect(withStatusOfCopy(original, anObservedGuest())).toBe(original);
    expect(withStatusOfCopy(copy(), undefined).status).toBeUndefined();
  });
});
