import { fairShare, planShards, rendezvousScore, type HostLeaseView } from '../../../../src/runtime/sharding/plan.js';

const HOSTS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

function leases(entries: Record<string, HostLeaseView>): Map<string, HostLeaseView> {
  return new Map(Object.entries(entries));
}

/** Runs the planner for every replica in turn, applying each plan, until nothing changes. */
function converge(replicas: string[], hosts: string[], start: Record<string, string> = {}): Record<string, string> {
  const holder: Record<string, string> = { ...start };
  for (let round = 0; round < 20; round += 1) {
    let changed = false;
    for (const self of replicas) {
      const view = leases(Object.fromEntries(Object.entries(holder).map(([h, r]) => [h, { holder: r, expired: !replicas.includes(r) }])));
      const plan = planShards({ self, liveReplicas: replicas, hosts, held: Object.keys(holder).filter((h) => holder[h] === self), leases: view });
      for (const h of plan.release) delete holder[h];
      for (const h of plan.acquire) holder[h] = self;
      changed ||= plan.release.length + plan.acquire.length > 0;
    }
    if (!changed) return holder;
  }
  throw new Error('the plans did not converge');
}

describe('planShards', () => {
  it('computes the fair share as ceil(hosts / live replicas)', () => {
    expect(fairShare(6, 3)).toBe(2);
    expect(fairShare(7, 3)).toBe(3);
    expect(fairShare(5, 0)).toBe(5);
    expect(fairShare(0, 4)).toBe(0);
  });

  it('lets a lone replica take every free host, and only free ones', () => {
    const plan = planShards({ self: 'a', liveReplicas: ['a'], hosts: HOSTS, held: [], leases: leases({ h2: { holder: 'b', expired: false }, h3: { holder: 'b', expired: true }, h4: { holder: '', expired: false } }) });
    expect(plan.share).toBe(6);
    expect(plan.acquire.sort()).toEqual(['h1', 'h3', 'h4', 'h5', 'h6']);
    expect(plan.release).toEqual([]);
  });

  it('counts itself live even before its heartbeat is seen', () => {
    expect(planShards({ self: 'c', liveReplicas: ['a', 'b'], hosts: HOSTS, held: [], leases: leases({}) }).share).toBe(2);
  });

  it('releases the surplus when a replica joins, keeping the hosts it prefers', () => {
    const held = [...HOSTS];
    const plan = planShards({ self: 'a', liveReplicas: ['a', 'b', 'c'], hosts: HOSTS, held, leases: leases(Object.fromEntries(HOSTS.map((h) => [h, { holder: 'a', expired: false }]))) });
    expect(plan.keep).toHaveLength(2);
    expect(plan.release).toHaveLength(4);
    const kept = Math.min(...plan.keep.map((h) => rendezvousScore('a', h)));
    expect(plan.release.every((h) => rendezvousScore('a', h) <= kept)).toBe(true);
  });

  it('releases hosts whose ZHost was deleted', () => {
    const plan = planShards({ self: 'a', liveReplicas: ['a'], hosts: ['h1'], held: ['h1', 'gone'], leases: leases({ h1: { holder: 'a', expired: false } }) });
    expect(plan.release).toEqual(['gone']);
    expect(plan.keep).toEqual(['h1']);
  });

  it('converges to one holder per host and fair shares, whatever the start', () => {
    const replicas = ['r-1', 'r-2', 'r-3'];
    const fromScratch = converge(replicas, HOSTS);
    const fromOneHolder = converge(replicas, HOSTS, Object.fromEntries(HOSTS.map((h) => [h, 'r-1'])));
    for (const holder of [fromScratch, fromOneHolder]) {
      expect(Object.keys(holder).sort()).toEqual(HOSTS);
      for (const r of replicas) expect(Object.values(holder).filter((x) => x === r)).toHaveLength(2);
    }
  });

  it("gives a dead replica's hosts to the survivors once its Leases expired", () => {
    const before = converge(['r-1', 'r-2', 'r-3'], HOSTS);
    const after = converge(['r-2', 'r-3'], HOSTS, before);
    expect(Object.keys(after).sort()).toEqual(HOSTS);
    expect(Object.values(after)).not.toContain('r-1');
    // the survivors kept what they had
    for (const [host, r] of Object.entries(before)) if (r !== 'r-1') expect(after[host]).toBe(r);
  });

  it('covers every host even when hosts do not divide evenly', () => {
    const hosts = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const holder = converge(['x', 'y', 'z'], hosts);
    expect(Object.keys(holder).sort()).toEqual(hosts);
    for (const r of ['x', 'y', 'z']) expect(Object.values(holder).filter((v) => v === r).length).toBeLessThanOrEqual(3);
  });
});
