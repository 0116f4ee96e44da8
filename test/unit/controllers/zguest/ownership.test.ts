import { findOlderClaim } from '../../../../src/controllers/zguest/ownership.js';
import { mapHostToGuests, mapUseridRivals } from '../../../../src/controllers/zguest/watches.js';
import { aGuest } from '../../../builders/zguest.js';

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
