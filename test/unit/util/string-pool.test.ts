import { createStringPool } from '../../../src/util/string-pool.js';

const guest = (name: string, uid: string, time: string) => ({
  apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest',
  metadata: { name, namespace: 'default', uid, resourceVersion: uid.slice(0, 4), creationTimestamp: time, finalizers: ['zvm.dev/guest-protection'] },
  spec: { userid: name.toUpperCase(), vcpus: 1, note: 'x'.repeat(200) },
  status: { conditions: [{ type: 'Ready', status: 'True', reason: 'GuestRunning', lastTransitionTime: time }] },
});

describe('string pool', () => {
  it('keeps every value as it was and pools the repeated short strings, not identity fields, timestamps or long text', () => {
    const pool = createStringPool();
    const a = guest('g1', '0f6c7a52-1', '2026-11-29T01:44:26Z');
    const copy = structuredClone(a);
    expect(pool.intern(a)).toBe(a);
    expect(a).toEqual(copy);
    // apiVersion, kind, namespace, the finalizer, userid, Ready, True, GuestRunning
    expect(pool.size).toBe(8);
    pool.intern(guest('g2', '0f6c7a52-2', '2026-11-29T01:45:00Z'));
    expect(pool.size).toBe(9); // only the second userid is new
  });

  it('stops growing at its limit and still returns each object whole', () => {
    const pool = createStringPool(3);
    const a = guest('g1', 'u1', '2026-11-29T01:44:26Z');
    const copy = structuredClone(a);
    pool.intern(a);
    expect(pool.size).toBe(3);
    expect(a).toEqual(copy);
  });
});
