import { API_VERSION, FINALIZER, OWNER_UID_ANNOTATION, type ZGuest } from '../../../../src/api/index.js';
import { claimWithLabel } from '../../../../src/controllers/index.js';

const guest = (metadata: Partial<ZGuest['metadata']>): ZGuest => ({
  apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'g', namespace: 'default', uid: 'u-1', ...metadata },
  spec: { userid: 'G', vcpus: 1, memory: '512M', host: 'h1' },
} as ZGuest);

describe('the claim the host labeler stamps with a guest\'s label', () => {
  it('is the reconciler\'s claim (finalizer and owner uid) where the host has a hypervisor', () => {
    expect(claimWithLabel(guest({ finalizers: ['example.com/other'] }), true)).toEqual({ finalizers: ['example.com/other', FINALIZER], annotations: { [OWNER_UID_ANNOTATION]: 'u-1' } });
  });

  it('keeps the mark a copied guest carries (clusterctl move, a restore), not its new uid', () => {
    expect(claimWithLabel(guest({ uid: 'u-new', annotations: { [OWNER_UID_ANNOTATION]: 'u-old' } }), true)?.annotations).toEqual({ [OWNER_UID_ANNOTATION]: 'u-old' });
  });

  it('is none for a host without a hypervisor, a guest being deleted, one already claimed, or another kind', () => {
    expect(claimWithLabel(guest({}), false)).toBeUndefined();
    expect(claimWithLabel(guest({ deletionTimestamp: '2026-11-29T00:00:00Z', finalizers: ['example.com/other'] }), true)).toBeUndefined();
    expect(claimWithLabel(guest({ finalizers: [FINALIZER], annotations: { [OWNER_UID_ANNOTATION]: 'u-0' } }), true)).toBeUndefined();
    expect(claimWithLabel({ ...guest({}), kind: 'ZGuestAction' } as unknown as ZGuest, true)).toBeUndefined();
  });
});
