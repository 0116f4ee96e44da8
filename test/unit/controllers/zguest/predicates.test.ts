import type { ZGuest, ZGuestStatus } from '../../../../src/api/index.js';
import { isSettled, zguestClaimPredicate, zguestEventPredicate } from '../../../../src/controllers/zguest/predicates.js';
import { aGuest } from '../../../builders/zguest.js';

const ready = (generation = 1, extra: Partial<ZGuestStatus> = {}): ZGuestStatus => ({
  observedGeneration: generation,
  powerState: 'on',
  conditions: [{ type: 'Ready', status: 'True', reason: 'GuestRunning', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  ...extra,
});
const settled = (meta: Parameters<typeof aGuest>[1] = {}): ZGuest => aGuest({}, { status: ready(), ...meta });
const update = (a: ZGuest, b: ZGuest) => zguestEventPredicate.update!(a, b);

describe('ZGuest event predicates', () => {
  it('calls a guest settled only when this generation is observed Ready, owned by its finalizer and owes no token', () => {
    expect(isSettled(settled())).toBe(true);
    expect(isSettled(aGuest({}, { status: ready(1) , generation: 2 }))).toBe(false);
    expect(isSettled(aGuest({}))).toBe(false);
    expect(isSettled(settled({ finalizers: [] }))).toBe(false);
    expect(isSettled(settled({ deletionTimestamp: '2026-01-02T00:00:00Z' }))).toBe(false);
    expect(isSettled(settled({ annotations: { 'zvm.dev/reboot-requested-at': '2026-02-01T00:00:00Z' } }))).toBe(false);
  });

  it('skips settled guests at start-up and on resync, but not unsettled ones', () => {
    const g = settled();
    expect(zguestEventPredicate.create!(g)).toBe(false);
    expect(update(g, g)).toBe(false);
    const failed = aGuest({}, { status: { observedGeneration: 1, conditions: [] } });
    expect(zguestEventPredicate.create!(failed)).toBe(true);
    expect(update(failed, failed)).toBe(true);
  });

  it('reconciles on spec, annotation and deletion changes, and on a lost finalizer', () => {
    const g = settled();
    expect(update(g, { ...g, metadata: { ...g.metadata, generation: 2 } })).toBe(true);
    expect(update(g, { ...g, metadata: { ...g.metadata, annotations: { 'zvm.dev/rest-requested-at': 'now' } } })).toBe(true);
    expect(update(g, { ...g, metadata: { ...g.metadata, deletionTimestamp: '2026-01-02T00:00:00Z' } })).toBe(true);
    expect(update(g, { ...g, metadata: { ...g.metadata, finalizers: [] } })).toBe(true);
  });

  it("ignores the controller's own status and finalizer writes, settled or not", () => {
    const fresh = aGuest({}, { finalizers: [] });
    const withFinalizer = aGuest({});
    expect(update(fresh, withFinalizer)).toBe(false);
    const progressing = aGuest({}, { status: { observedGeneration: 1, conditions: [] } });
    expect(update(withFinalizer, progressing)).toBe(false);
    expect(update(progressing, settled())).toBe(false);
  });

  it('re-decides userid claims only when a claimant appears unsettled, goes, or starts going', () => {
    const g = settled();
    expect(zguestClaimPredicate.create!(g)).toBe(false);
    expect(zguestClaimPredicate.create!(aGuest({}))).toBe(true);
    expect(zguestClaimPredicate.update!(g, g)).toBe(false);
    expect(zguestClaimPredicate.update!(g, { ...g, status: ready(1, { powerState: 'off' }) })).toBe(false);
    expect(zguestClaimPredicate.update!(g, { ...g, metadata: { ...g.metadata, deletionTimestamp: '2026-01-02T00:00:00Z' } })).toBe(true);
    expect(zguestClaimPredicate.delete).toBeUndefined();
  });
});
