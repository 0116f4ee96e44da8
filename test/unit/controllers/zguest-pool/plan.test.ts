import { API_VERSION, type ZGuest, type ZGuestPool, type ZGuestPoolSpec } from '../../../../src/api/index.js';
import { buildPoolGuest, templateHash } from '../../../../src/controllers/zguest-pool/guests.js';
import { planPool, type PoolPlan } from '../../../../src/controllers/zguest-pool/plan.js';
import { computePoolStatus } from '../../../../src/controllers/zguest-pool/status.js';

const NOW = new Date(Date.UTC(2026, 0, 1, 0, 1, 0));

function aPool(spec: Partial<ZGuestPoolSpec> = {}, status: ZGuestPool['status'] = {}): ZGuestPool {
  return {
    apiVersion: API_VERSION, kind: 'ZGuestPool',
    metadata: { name: 'web', namespace: 'default', uid: 'pool-uid', generation: 1 },
    spec: { replicas: 5, useridPrefix: 'WEB', template: { spec: { class: 'small', image: 'img-v1' } }, ...spec },
    status,
  };
}

/** A small world: the guests the plans made, each Ready unless the test says otherwise. */
class World {
  guests: ZGuest[] = [];
  private clock = 0;
  constructor(public pool: ZGuestPool, private readyWhen: (g: ZGuest) => boolean = () => true) {}

  /** one reconcile: plan, create, delete; returns the plan */
  step(taken: Set<string> = new Set()): PoolPlan {
    for (const g of this.guests) taken.add(`${g.spec.host}/${g.spec.userid}`);
    const plan = planPool({ pool: this.pool, guests: this.guests, taken, classRevision: 1, now: NOW });
    this.pool = { ...this.pool, status: { ...this.pool.status, lastIndex: plan.lastIndex } };
    const gone = new Set(plan.deletes.map((g) => g.metadata.name));
    this.guests = this.guests.filter((g) => !gone.has(g.metadata.name));
    for (const c of plan.creates) {
      const g = buildPoolGuest(this.pool, c, plan.hash, 1);
      g.metadata.creationTimestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, this.clock++)).toISOString();
      this.guests.push(g);
    }
    return plan;
  }

  /** the ZGuest controller's part: each guest becomes Ready, or Failed */
  settleGuests(): void {
    for (const g of this.guests) {
      const ok = this.readyWhen(g);
      g.status = { phase: ok ? 'Running' : 'Failed', conditions: [{ type: 'Ready', status: ok ? 'True' : 'False', reason: ok ? 'GuestRunning' : 'HypervisorError', message: '', lastTransitionTime: '' }] };
    }
  }

  ready(): number {
    return this.guests.filter((g) => g.status?.conditions?.[0]?.status === 'True').length;
  }
}

describe('planPool: scaling', () => {
  it('creates the replicas with fresh userids, counter first', () => {
    const w = new World(aPool());
    const plan = w.step();
    expect(plan.creates.map((c) => c.userid)).toEqual(['WEB00001', 'WEB00002', 'WEB00003', 'WEB00004', 'WEB00005']);
    expect(plan.lastIndex).toBe(5);
    expect(w.guests[0].metadata).toMatchObject({ name: 'web-web00001', labels: { 'zvm.dev/pool': 'web' }, ownerReferences: [{ kind: 'ZGuestPool', uid: 'pool-uid', controller: true }] });
    expect(w.guests[0].spec).toMatchObject({ userid: 'WEB00001', host: 'default', class: 'small', classRevision: 1, image: 'img-v1' });
  });

  it('scales 5 → 8 → 2, dropping not-Ready guests first, then the newest', () => {
    const w = new World(aPool());
    w.step();
    w.settleGuests();
    w.pool.spec.replicas = 8;
    expect(w.step().creates.map((c) => c.userid)).toEqual(['WEB00006', 'WEB00007', 'WEB00008']);
    w.settleGuests();
    w.guests.find((g) => g.spec.userid === 'WEB00002')!.status!.conditions![0].status = 'False';
    w.pool.spec.replicas = 2;
    const plan = w.step();
    expect(plan.deletes.map((g) => g.spec.userid)).toEqual(['WEB00002', 'WEB00008', 'WEB00007', 'WEB00006', 'WEB00005', 'WEB00004']);
    expect(w.guests.map((g) => g.spec.userid)).toEqual(['WEB00001', 'WEB00003']);
  });

  it('never hands a counter value out twice: the recorded one wins over the guests left, and store userids are skipped', () => {
    // a restart after the counter reached 7 but only 5 guests were written
    const w = new World(aPool({ replicas: 7 }, { lastIndex: 7 }));
    const taken = new Set(['default/WEB00009']);
    const plan = planPool({ pool: w.pool, guests: [], taken, classRevision: 1, now: NOW });
    expect(plan.creates.map((c) => c.userid)).toEqual(['WEB00008', 'WEB00010', 'WEB00011', 'WEB00012', 'WEB00013', 'WEB00014', 'WEB00015']);
  });

  it('drops a guest whose userid belongs to someone else on the host, and takes the next value', () => {
    const w = new World(aPool({ replicas: 1 }));
    w.step();
    w.guests[0].status = { phase: 'Conflict' };
    const plan = w.step();
    expect(plan.deletes.map((g) => g.spec.userid)).toEqual(['WEB00001']);
    expect(plan.creates.map((c) => c.userid)).toEqual(['WEB00002']);
  });

  it('stops with UseridsExhausted when the counter has no room left', () => {
    const plan = planPool({ pool: aPool({ replicas: 2, useridPrefix: 'WEBAPP' }, { lastIndex: 98 }), guests: [], taken: new Set(), classRevision: 1, now: NOW });
    expect(plan.creates.map((c) => c.userid)).toEqual(['WEBAPP99']);
    expect(plan.stalled?.reason).toBe('UseridsExhausted');
  });

  it('spreads guests over its hosts, fewest guests first', () => {
    const w = new World(aPool({ replicas: 5, hosts: ['a', 'b', 'c'] }));
    w.step();
    expect(w.guests.map((g) => g.spec.host)).toEqual(['a', 'b', 'c', 'a', 'b']);
    w.pool.spec.replicas = 7;
    w.step();
    expect(w.guests.slice(5).map((g) => g.spec.host)).toEqual(['c', 'a']);
  });
});

describe('planPool: rolling update', () => {
  it('replaces every guest with maxUnavailable 1, never fewer than 4 of 5 Ready, each new one Ready before the next old one goes', () => {
    const w = new World(aPool());
    w.step();
    w.settleGuests();
    w.pool = { ...w.pool, spec: { ...w.pool.spec, template: { spec: { class: 'small', image: 'img-v2' } } } };
    const hash = templateHash(w.pool, 1);
    let rounds = 0;
    while (w.guests.some((g) => g.metadata.labels?.['zvm.dev/pool-template-hash'] !== hash) && rounds++ < 20) {
      w.step();
      expect(w.ready()).toBeGreaterThanOrEqual(4);
      w.settleGuests();
    }
    expect(w.guests).toHaveLength(5);
    expect(w.guests.every((g) => g.spec.image === 'img-v2')).toBe(true);
    expect(rounds).toBe(5); // one guest per round
  });

  it('stops at a failed new guest and deletes no further old one', () => {
    const w = new World(aPool(), (g) => g.spec.image !== 'broken');
    w.step();
    w.settleGuests();
    w.pool = { ...w.pool, spec: { ...w.pool.spec, template: { spec: { class: 'small', image: 'broken' } } } };
    for (let i = 0; i < 4; i++) {
      w.step();
      w.settleGuests();
    }
    const plan = w.step();
    expect(plan.stalled?.reason).toBe('RolloutStalled');
    expect(w.guests.filter((g) => g.spec.image === 'img-v1')).toHaveLength(4);
    expect(w.guests.filter((g) => g.spec.image === 'broken')).toHaveLength(1);
    const status = computePoolStatus({ pool: w.pool, guests: w.guests, plan, classRevision: 1, now: new Date(0) });
    expect(status).toMatchObject({ replicas: 5, readyReplicas: 4, updatedReplicas: 1, phase: 'Stalled' });
    expect(status.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'False', reason: 'RolloutStalled' });
  });

  it('stops at a new guest not Ready past the progress deadline (an image that never comes)', () => {
    const w = new World(aPool({ progressDeadlineSeconds: 30 }), (g) => g.spec.image !== 'never');
    w.step();
    w.settleGuests();
    w.pool = { ...w.pool, spec: { ...w.pool.spec, template: { spec: { class: 'small', image: 'never' } } } };
    w.step();
    const waiting = w.guests.find((g) => g.spec.image === 'never')!;
    waiting.status = { phase: 'Provisioning' };
    const young = planPool({ pool: w.pool, guests: w.guests, taken: new Set(), classRevision: 1, now: new Date(Date.parse(waiting.metadata.creationTimestamp!) + 10_000) });
    expect(young.stalled).toBeUndefined();
    const late = planPool({ pool: w.pool, guests: w.guests, taken: new Set(), classRevision: 1, now: new Date(Date.parse(waiting.metadata.creationTimestamp!) + 31_000) });
    expect(late.stalled?.message).toContain('is not Ready after 30 s');
    expect(late.deletes).toHaveLength(0);
  });

  it('uses maxSurge to add a new guest before an old one goes', () => {
    const w = new World(aPool({ maxUnavailable: 0, maxSurge: 1 }));
    w.step();
    w.settleGuests();
    w.pool = { ...w.pool, spec: { ...w.pool.spec, template: { spec: { class: 'small', image: 'img-v2' } } } };
    const plan = w.step();
    expect(plan.deletes).toHaveLength(0);
    expect(plan.creates).toHaveLength(1);
    expect(w.guests).toHaveLength(6);
  });

  it('holds everything while paused', () => {
    const w = new World(aPool({ paused: true }));
    const plan = w.step();
    expect(plan.creates).toHaveLength(0);
    expect(computePoolStatus({ pool: w.pool, guests: [], plan, classRevision: 1, now: new Date(0) }).phase).toBe('Paused');
  });
});
