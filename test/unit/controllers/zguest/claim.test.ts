import { FINALIZER, OWNER_UID_ANNOTATION } from '../../../../src/api/index.js';
import { claimWithLabel } from '../../../../src/controllers/zguest/claim.js';
import { aGuest } from '../../../builders/zguest.js';

describe('claimWithLabel: what the host labeler writes with a new guest\'s label', () => {
  it('is the finalizer and the owner mark (its uid) for a new guest of a known host', () => {
    expect(claimWithLabel(aGuest({}, { uid: 'u-1', finalizers: [] }), true)).toEqual({ finalizer: FINALIZER, annotations: { [OWNER_UID_ANNOTATION]: 'u-1' } });
  });

  it('keeps the mark a copied guest carries (clusterctl move, a restore), not its new uid', () => {
    const copy = aGuest({}, { uid: 'u-new', finalizers: [], annotations: { [OWNER_UID_ANNOTATION]: 'u-old' } });
    expect(claimWithLabel(copy, true)?.annotations).toEqual({ [OWNER_UID_ANNOTATION]: 'u-old' });
  });

  it('is nothing where the controller would write nothing first', () => {
    expect(claimWithLabel(aGuest({}, { uid: 'u-1', finalizers: [] }), false)).toBeUndefined(); // no host has seen it yet
    expect(claimWithLabel(aGuest({}, { uid: 'u-1', finalizers: [FINALIZER], annotations: { [OWNER_UID_ANNOTATION]: 'u-1' } }), true)).toBeUndefined();
    expect(claimWithLabel(aGuest({}, { uid: 'u-1', finalizers: [], deletionTimestamp: '2026-01-01T00:00:00Z' }), true)).toBeUndefined();
    // a finalizer without the mark (a guest of an older release): the mark still comes
    expect(claimWithLabel(aGuest({}, { uid: 'u-3' }), true)).toEqual({ finalizer: FINALIZER, annotations: { [OWNER_UID_ANNOTATION]: 'u-3' } });
    expect(claimWithLabel({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZVolume', metadata: { name: 'v', uid: 'u-2' } }, true)).toBeUndefined();
  });
});
