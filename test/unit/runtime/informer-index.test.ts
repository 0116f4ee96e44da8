/**
 * The userid-claim index (issue 23): the claim check and the rival mapper look up a guest's rivals in
 * an index over the informer instead of scanning every guest, so the objects they examine per guest
 * stay flat from 1 000 to 20 000 guests. Counted objects, not times.
 */
import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { claimIndexValue, findOlderClaim } from '../../../src/controllers/zguest/ownership.js';
import { mapUseridRivals } from '../../../src/controllers/zguest/watches.js';
import { createInformerIndex } from '../../../src/runtime/informer-index.js';
import type { InformerHandler } from '../../../src/runtime/informer.js';
import { createStubInformer } from './stub-informer.js';

const SAMPLE = 500;

function aGuest(i: number, userid = `G${i}`, created = '2026-01-01T00:00:00Z'): ZGuest {
  return {
    apiVersion: API_VERSION, kind: 'ZGuest',
    metadata: { name: `g${i}`, namespace: 'ns', uid: `uid-${i}`, creationTimestamp: created },
    spec: { userid, vcpus: 1, memory: '1G', host: i % 2 ? 'h1' : 'h2' },
  };
}

/** Objects the claim check and the rival mapper examine per guest, over a sample of the fleet. */
function examinedPerGuest(count: number): number {
  const informer = createStubInformer('ZGuest');
  const index = createInformerIndex(informer as never, (g: ZGuest) => [claimIndexValue(g)]);
  let examined = 0;
  const rivalsOf = (g: ZGuest): ZGuest[] => {
    const found = index.lookup(claimIndexValue(g));
    examined += found.length;
    return found;
  };
  const guests = Array.from({ length: count }, (_, i) => aGuest(i));
  for (const g of guests) informer.emitAdd(g);
  const mapper = mapUseridRivals(rivalsOf);
  for (const g of guests.slice(0, SAMPLE)) {
    expect(findOlderClaim(g, rivalsOf(g))).toBeUndefined();
    expect(mapper(g)).toEqual([]);
  }
  return examined / SAMPLE; // the scan this replaces examined every cached guest, twice per guest
}

describe('the userid-claim index', () => {
  it('examines as many objects per guest at 20 000 guests as at 1 000', () => {
    const small = examinedPerGuest(1_000);
    const large = examinedPerGuest(20_000);
    expect(large).toBeLessThanOrEqual(1.5 * small);
    expect(large).toBeLessThanOrEqual(2); // the guest itself, once per look-up
  });

  it('finds the older rival on the same host and userid, and follows updates', () => {
    const informer = createStubInformer('ZGuest');
    const index = createInformerIndex(informer as never, (g: ZGuest) => [claimIndexValue(g)]);
    const older = aGuest(1, 'SAME', '2026-01-01T00:00:00Z');
    const newer = aGuest(3, 'same', '2026-01-02T00:00:00Z'); // host h1 too; userids compare upper-cased
    const elsewhere = aGuest(2, 'SAME', '2026-01-01T00:00:00Z'); // host h2
    for (const g of [older, newer, elsewhere]) informer.emitAdd(g);
    const rivalsOf = (g: ZGuest): ZGuest[] => index.lookup(claimIndexValue(g));
    expect(findOlderClaim(newer, rivalsOf(newer))).toBe('ns/g1');
    expect(mapUseridRivals(rivalsOf)(older)).toEqual([{ namespace: 'ns', name: 'g3' }]);
    const renamed = { ...older, spec: { ...older.spec, userid: 'OTHER' } };
    informer.emitUpdate(older, renamed);
    expect(findOlderClaim(newer, rivalsOf(newer))).toBeUndefined();
    expect(rivalsOf(renamed).map((g) => g.metadata.name)).toEqual(['g1']);
  });
});

describe('an informer index bucket', () => {
  it('holds one object, then several, and follows updates and deletes down to none', () => {
    let events: InformerHandler<ZGuest> = {};
    const index = createInformerIndex<ZGuest>({ addHandler: (h) => ((events = h), () => undefined) }, (g) => [g.spec.userid]);
    const [a, b] = [aGuest(1, 'SAME'), aGuest(2, 'SAME')];
    events.onAdd?.(a);
    expect(index.lookup('SAME')).toEqual([a]);
    const a2 = { ...a, metadata: { ...a.metadata, resourceVersion: '2' } };
    events.onUpdate?.(a, a2);
    expect(index.lookup('SAME')).toEqual([a2]);
    events.onAdd?.(b);
    expect(index.lookup('SAME')).toEqual([a2, b]);
    events.onDelete?.(a2);
    expect(index.lookup('SAME')).toEqual([b]);
    const moved = { ...b, spec: { ...b.spec, userid: 'OTHER' } };
    events.onUpdate?.(b, moved);
    expect(index.lookup('SAME')).toEqual([]);
    expect(index.lookup('OTHER')).toEqual([moved]);
    events.onDelete?.(moved);
    expect(index.lookup('OTHER')).toEqual([]);
  });
});
