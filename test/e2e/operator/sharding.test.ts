/**
 * Per-host sharding (issue 15) between the chart's controller pods: 3 replicas share 6 simulated hosts
 * (one `zvm-operator sim --hosts 6` process) on per-host Leases. Every host is held by exactly one
 * replica and driven only by it (the simulator's call log names the caller by its address); a replica
 * killed with SIGKILL loses its hosts within lease duration + 5 s and the work created meanwhile
 * completes; SIGTERM hands the hosts over within 5 s; a replica paused with SIGSTOP past its renew
 * deadline sends nothing to any host after that deadline and comes back as a follower.
 */
import { kubectlOk } from '../../kube/kubectl.js';
import { applyObjects, eventually } from './helpers.js';
import { shardedReplicasForSuite } from './sharded-suite.js';
import { aGuestOn, gauge, hostLeases, LEASE, readCalls, type HostLease, type Replica } from './sharding-env.js';

/** per test: processes start slowly on a loaded machine; every wait inside is bounded on its own */
const TEST_MS = 300_000;
// 200 ms a call: creating a guest takes several calls, so a replica can be paused in the middle of one
const suite = shardedReplicasForSuite({ hosts: 6, addresses: ['127.0.0.11', '127.0.0.12', '127.0.0.13'], latencyMs: 200 });
const env = suite.env;
const sims = suite.sims;
/** the replica started as pod `index` (0-based), whether or not it still runs */
const started: Replica[] = [];
const replica = (index: number): Replica => started[index];

function byIdentity(identity: string): Replica | undefined {
  return started.find((r) => r.identity === identity);
}

/** true when every host's Lease is held by a running replica and each holds its fair share. */
async function balanced(expectedReplicas: Replica[]): Promise<boolean> {
  const leases = await hostLeases(env());
  if (leases.size !== sims().names.length) return false;
  const share = Math.ceil(sims().names.length / expectedReplicas.length);
  const counts = new Map(expectedReplicas.map((r) => [r.identity, 0]));
  for (const lease of leases.values()) {
    if (!counts.has(lease.holder)) return false;
    counts.set(lease.holder, (counts.get(lease.holder) ?? 0) + 1);
  }
  return [...counts.values()].every((n) => n <= share);
}

async function waitReady(names: string[]): Promise<void> {
  await kubectlOk(['wait', '-n', env().namespace, '--for=condition=Ready', ...names.map((n) => `zg/${n}`), '--timeout=90s'], { kubeconfig: env().kubeconfig, timeoutMs: 100_000 });
}

function hostsOf(leases: Map<string, HostLease>, identity: string): string[] {
  return [...leases.values()].filter((l) => l.holder === identity).map((l) => l.host);
}

beforeAll(() => {
  started.push(...suite.replicas);
});

describe('per-host sharding between controller replicas', () => {
  it('gives every host to exactly one replica, which alone drives it', async () => {
    const all = [...suite.replicas];
    await eventually('the 6 hosts spread over the 3 replicas', () => balanced(all), all.map((r) => r.proc), 90_000);
    const guests = sims().names.map((host, i) => aGuestOn(`g-${host}`, `SHA${i + 1}`, host));
    await applyObjects(env(), guests);
    await waitReady(sims().names.map((h) => `g-${h}`));

    const leases = await hostLeases(env());
    for (const r of all) expect(hostsOf(leases, r.identity)).toHaveLength(2);
    // the label the replicas watch by was set from spec.host
    expect(await kubectlOk(['get', 'zg', '-n', env().namespace, 'g-h4', '-o', 'jsonpath={.metadata.labels.zvm\\.dev/host}'], { kubeconfig: env().kubeconfig })).toBe('h4');
    // kubectl get zhosts shows the holder; the metric says how many hosts each replica holds
    const heldBy = await kubectlOk(['get', 'zhosts', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.heldBy}{"\\n"}{end}'], { kubeconfig: env().kubeconfig });
    for (const [host, lease] of leases) expect(heldBy).toContain(`${host}=${lease.holder}`);
    expect(await kubectlOk(['get', 'zhosts'], { kubeconfig: env().kubeconfig })).toMatch(/HELD BY/);
    expect((await Promise.all(all.map((r) => gauge(r, 'zvm_shard_hosts_held')))).reduce((a, b) => a + b, 0)).toBe(6);

    // the simulator saw each guest's host driven from its holder's address only
    const calls = readCalls(sims()).filter((c) => c.target.startsWith('SHA'));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const holder = byIdentity(leases.get(`h${call.host + 1}`)!.holder)!;
      expect({ host: call.host, peer: call.peer }).toEqual({ host: call.host, peer: holder.address });
    }
  }, TEST_MS);

  it('takes over the hosts of a SIGKILLed replica within lease duration + 5 s and finishes the pending work', async () => {
    const victim = replica(0);
    const before = await hostLeases(env());
    const orphaned = hostsOf(before, victim.identity);
    const killedAt = Date.now();
    victim.proc.child.kill('SIGKILL');
    await victim.proc.exited;
    suite.remove(victim);
    await applyObjects(env(), orphaned.map((host, i) => aGuestOn(`k-${host}`, `KIL${i + 1}`, host)));

    const survivors = [...suite.replicas];
    await eventually('the survivors to hold every host', () => balanced(survivors), survivors.map((r) => r.proc), 60_000);
    const after = await hostLeases(env());
    for (const host of orphaned) {
      const lease = after.get(host)!;
      expect(lease.transitions).toBeGreaterThan(before.get(host)!.transitions);
      expect(lease.acquireTime - killedAt).toBeLessThanOrEqual(LEASE.durationMs + 5_000);
    }
    await waitReady(orphaned.map((h) => `k-${h}`));
  }, TEST_MS);

  it('pauses a replica with SIGSTOP past its renew deadline: it writes nothing after the deadline and resumes as a follower', async () => {
    const paused = replica(1);
    const other = replica(2);
    const mine = hostsOf(await hostLeases(env()), paused.identity);
    expect(mine.length).toBeGreaterThan(0);
    // work under way on its hosts when it stops: paused between two calls of a guest's creation, it would go on
    // with the next call at once when resumed, unless fenced
    const appliedAt = Date.now();
    await applyObjects(env(), mine.map((host, i) => aGuestOn(`s-${host}`, `STP${i + 1}`, host)));
    await eventually('the replica to be creating its guests', async () => readCalls(sims()).some((c) => c.peer === paused.address && c.at > appliedAt && /^STP/.test(c.target)), [paused.proc], 60_000);
    const stoppedAt = Date.now();
    paused.proc.child.kill('SIGSTOP');
    const deadline = stoppedAt + LEASE.renewDeadlineMs;
    await eventually('the other replica to take every host', async () => hostsOf(await hostLeases(env()), other.identity).length === 6, [other.proc], 60_000);
    await waitReady(mine.map((h) => `s-${h}`));
    const resumedAt = Date.now();
    paused.proc.child.kill('SIGCONT');

    // back as a live replica: its heartbeat is renewed after the resume, and the hosts are shared again
    const both = [paused, other];
    await eventually('the hosts to be shared by both replicas again', () => balanced(both), both.map((r) => r.proc), 60_000);
    const leases = await hostLeases(env());
    const reacquired = [...leases.values()].filter((l) => l.holder === paused.identity).map((l) => l.acquireTime);
    const firstReacquired = Math.min(Infinity, ...reacquired);
    expect(firstReacquired).toBeGreaterThan(resumedAt);
    const fromPaused = readCalls(sims()).filter((c) => c.peer === paused.address);
    expect(fromPaused.some((c) => c.at < stoppedAt)).toBe(true);
    // fencing: between its renew deadline and a new Lease of its own, not a single request
    expect(fromPaused.filter((c) => c.at > deadline && c.at < firstReacquired)).toEqual([]);
    expect(paused.proc.exitStatus()).toBeUndefined();
  }, TEST_MS);

  it('hands the hosts of a SIGTERMed replica over within 5 s', async () => {
    const leaving = replica(1);
    const staying = replica(2);
    const theirs = hostsOf(await hostLeases(env()), leaving.identity);
    expect(theirs.length).toBeGreaterThan(0);
    const termAt = Date.now();
    leaving.proc.child.kill('SIGTERM');
    expect(await leaving.proc.exited).toBe(0);
    suite.remove(leaving);
    await eventually('the staying replica to hold every host', async () => hostsOf(await hostLeases(env()), staying.identity).length === 6, [staying.proc], 30_000);
    const leases = await hostLeases(env());
    for (const host of theirs) expect(leases.get(host)!.acquireTime - termAt).toBeLessThanOrEqual(5_000);
    await applyObjects(env(), [aGuestOn('t-after', 'TRM1', theirs[0])]);
    await waitReady(['t-after']);
  }, TEST_MS);
});
