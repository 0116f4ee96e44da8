import { setTimeout as delay } from 'node:timers/promises';
import { createShardCoordinator, FencedError, type ShardCoordinator } from '../../../../src/runtime/sharding/coordinator.js';
import { createMemoryLeases, type MemoryLeases } from './memory-leases.js';

/**
 * Coordinators of several replicas over one set of in-memory Leases, on the real clock with short
 * lease settings. Conditions are polled with generous bounds; the one invariant checked all along is
 * that no host is ever held by two replicas at once (a sampler looks every few milliseconds, and every
 * host's work checks it when it starts).
 */
const HOSTS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const TIMING = { leaseDurationMs: 1_000, renewDeadlineMs: 600, retryPeriodMs: 60 };

interface Replica {
  id: string;
  coordinator: ShardCoordinator;
  stop: AbortController;
  running: Promise<void>;
  /** hosts whose work is running now */
  working: Set<string>;
}

let leases: MemoryLeases;
let replicas: Replica[];
let violations: string[];
let sampler: NodeJS.Timeout | undefined;

function start(id: string, work?: (host: string, signal: AbortSignal) => Promise<void>): Replica {
  const working = new Set<string>();
  const stop = new AbortController();
  const replica = { id, stop, working } as Replica;
  replica.coordinator = createShardCoordinator({
    leases: leases.storeFor(id), identity: id, hosts: () => HOSTS, ...TIMING,
    work: work ?? (async (host, signal) => {
      for (const other of replicas) if (other !== replica && other.coordinator.holds(host)) violations.push(`${id} started ${host} while ${other.id} held it`);
      working.add(host);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      working.delete(host);
    }),
  });
  replica.running = replica.coordinator.run(stop.signal);
  replicas.push(replica);
  return replica;
}

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** every host held by exactly one of `by`, each within its fair share */
function balanced(by: Replica[]): boolean {
  const share = Math.ceil(HOSTS.length / by.length);
  const held = by.flatMap((r) => r.coordinator.held());
  return held.length === HOSTS.length && new Set(held).size === HOSTS.length && by.every((r) => r.coordinator.held().length <= share);
}

beforeEach(() => {
  leases = createMemoryLeases();
  replicas = [];
  violations = [];
  sampler = setInterval(() => {
    for (const host of HOSTS) {
      const holders = replicas.filter((r) => r.coordinator.holds(host)).map((r) => r.id);
      if (holders.length > 1) violations.push(`${host} held by ${holders.join(' and ')}`);
    }
  }, 5);
});

afterEach(async () => {
  clearInterval(sampler);
  for (const r of replicas) r.stop.abort();
  await Promise.all(replicas.map((r) => r.running));
});

describe('shard coordinator', () => {
  it('spreads the hosts over the replicas, one holder each, and runs their work there', async () => {
    const all = ['a', 'b', 'c'].map((id) => start(id));
    await until('a balanced spread', () => balanced(all));
    for (const r of all) {
      expect(r.coordinator.held()).toHaveLength(2);
      expect([...r.working].sort()).toEqual([...r.coordinator.held()].sort());
    }
    for (const [host, holder] of leases.hostHolders()) expect(replicas.find((r) => r.id === holder)?.coordinator.holds(host)).toBe(true);
    expect(violations).toEqual([]);
  });

  it('releases the surplus to a replica that joins later', async () => {
    const first = start('a');
    await until('a to hold everything', () => first.coordinator.held().length === 6);
    const second = start('b');
    await until('a balanced spread', () => balanced([first, second]));
    expect(second.coordinator.held()).toHaveLength(3);
    expect(violations).toEqual([]);
  });

  it('hands every host over on stop: work stopped, Leases released, heartbeat deleted', async () => {
    const all = ['a', 'b', 'c'].map((id) => start(id));
    await until('a balanced spread', () => balanced(all));
    const [leaving, ...staying] = all;
    leaving.stop.abort();
    await leaving.running;
    expect(leaving.working.size).toBe(0);
    expect(leaving.coordinator.held()).toEqual([]);
    expect(leases.all().filter((l) => l.record.holderIdentity === 'a')).toEqual([]);
    expect(leases.all().find((l) => l.role === 'replica' && l.subject === 'a')).toBeUndefined();
    await until('the others to share every host', () => balanced(staying));
    expect(violations).toEqual([]);
  });

  it('fences a partitioned replica at its renew deadline, before anyone else takes its hosts, and takes it back after', async () => {
    const all = ['a', 'b', 'c'].map((id) => start(id));
    await until('a balanced spread', () => balanced(all));
    const [cut, ...rest] = all;
    const itsHosts = cut.coordinator.held();
    leases.partitioned.add('a');
    await until('a to stop holding its hosts', () => cut.coordinator.held().length === 0);
    expect(() => cut.coordinator.gate(itsHosts[0])).toThrow(FencedError);
    await until('its work to stop', () => cut.working.size === 0);
    await until('the others to take every host', () => balanced(rest));
    leases.partitioned.delete('a');
    await until('the three to share again', () => balanced(all));
    expect(violations).toEqual([]);
  });

  it('hands a host over when its work fails', async () => {
    let failures = 0;
    const flaky = start('a', async (host, signal) => {
      if (host === 'h1' && failures === 0) {
        failures += 1;
        throw new Error('cannot start');
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    });
    await until('h1 to be taken again after the failure', () => failures === 1 && flaky.coordinator.held().length === 6);
    expect(leases.hostHolders().get('h1')).toBe('a');
    // released (holder emptied) and acquired again: one more transition
    expect(leases.all().find((l) => l.role === 'host' && l.subject === 'h1')?.record.leaseTransitions).toBeGreaterThanOrEqual(1);
  });
});
