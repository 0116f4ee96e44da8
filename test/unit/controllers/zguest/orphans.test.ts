import { API_VERSION, OWNER_UID_ANNOTATION, type ZGuest, type ZHost } from '../../../../src/api/index.js';
import { findOrphans, planOrphans, type OrphanRecord } from '../../../../src/controllers/zguest/orphans.js';

const aZGuest = (uid: string, userid: string, host?: string): ZGuest =>
  ({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: userid.toLowerCase(), namespace: 'default', uid }, spec: { userid, ...(host ? { host } : {}) } }) as unknown as ZGuest;

const aZHost = (spec: Partial<ZHost['spec']> = {}): ZHost => ({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'default' }, spec });

describe('findOrphans', () => {
  const cases: { name: string; marks: [string, string | undefined][]; guests: ZGuest[]; expected: string[] }[] = [
    { name: 'a marked guest whose uid no ZGuest has', marks: [['G1', 'dead']], guests: [], expected: ['G1 DEAD'] },
    { name: 'an unmarked guest is never one', marks: [['G1', undefined]], guests: [], expected: [] },
    { name: 'the owner still exists (on another userid or host)', marks: [['G1', 'u1']], guests: [aZGuest('U1', 'OTHER', 'elsewhere')], expected: [] },
    { name: 'a ZGuest on this host claims the userid', marks: [['G1', 'dead']], guests: [aZGuest('u2', 'G1')], expected: [] },
    { name: 'a claim on another host does not count', marks: [['G1', 'dead']], guests: [aZGuest('u2', 'G1', 'elsewhere')], expected: ['G1 DEAD'] },
    { name: 'the owner is a copy of the ZGuest (a move, a restore) naming the mark in its annotation', marks: [['G1', 'u1']], guests: [{ ...aZGuest('u9', 'OTHER'), metadata: { name: 'other', uid: 'u9', annotations: { [OWNER_UID_ANNOTATION]: 'u1' } } }], expected: [] },
    { name: 'several, in userid order', marks: [['G2', 'd2'], ['G1', 'd1'], ['G3', undefined]], guests: [], expected: ['G1 D1', 'G2 D2'] },
  ];
  it.each(cases)('$name', ({ marks, guests, expected }) => {
    expect(findOrphans(new Map(marks), guests, 'default').map((o) => `${o.userid} ${o.ownerUid}`)).toEqual(expected);
  });
});

describe('planOrphans', () => {
  const t0 = new Date('2026-11-23T12:00:00Z');
  const later = (s: number) => new Date(t0.getTime() + s * 1000);
  const known: OrphanRecord = { userid: 'G1', ownerUid: 'DEAD', since: t0.toISOString() };

  it('records a new orphan with the time it was found and reports it', () => {
    const plan = planOrphans([], [{ userid: 'G1', ownerUid: 'DEAD' }], aZHost(), t0);
    expect(plan).toEqual({ records: [known], found: [known], toDelete: [] });
  });

  it('keeps the first time for an orphan it already knows and reports it only once', () => {
    const plan = planOrphans([known], [{ userid: 'G1', ownerUid: 'DEAD' }], aZHost(), later(60));
    expect(plan).toEqual({ records: [known], found: [], toDelete: [] });
  });

  it('drops an orphan that is gone or owned again', () => {
    expect(planOrphans([known], [], aZHost(), later(60)).records).toEqual([]);
  });

  it.each([
    { policy: undefined, grace: undefined, after: 30 * 86_400, deletes: false },
    { policy: 'Report' as const, grace: 0, after: 86_400, deletes: false },
    { policy: 'Delete' as const, grace: undefined, after: 3599, deletes: false },
    { policy: 'Delete' as const, grace: undefined, after: 3600, deletes: true },
    { policy: 'Delete' as const, grace: 0, after: 0, deletes: true },
    { policy: 'Delete' as const, grace: 600, after: 599, deletes: false },
  ])('orphanPolicy $policy, grace $grace s, $after s later: deletes=$deletes', ({ policy, grace, after, deletes }) => {
    const host = aZHost({ ...(policy ? { orphanPolicy: policy } : {}), ...(grace !== undefined ? { orphanGracePeriodSeconds: grace } : {}) });
    const plan = planOrphans([known], [{ userid: 'G1', ownerUid: 'DEAD' }], host, later(after));
    expect(plan.toDelete).toEqual(deletes ? [known] : []);
  });
});
