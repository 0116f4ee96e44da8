/**
 * A pool spread over two hosts held by two controller replicas (the chart's pods, per-host Leases):
 * the pool runs in the replica holding its first host and only writes ZGuests; each guest is created
 * on its host by the replica holding that host (the simulator's call log names the caller). A class's
 * revisions (a kind with no host) are recorded by the replica holding the unassigned Lease alone.
 */
import type { ZGuest, ZGuestClass, ZGuestPool } from '../../../src/api/index.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { applyObjects, eventually } from './helpers.js';
import { shardedReplicasForSuite } from './sharded-suite.js';
import { hostLeases, readCalls } from './sharding-env.js';

const suite = shardedReplicasForSuite({ hosts: 2, addresses: ['127.0.0.21', '127.0.0.22'] });
const env = suite.env;
const replicas = suite.replicas;
const UNASSIGNED_LEASE = 'zvm-operator-leader-unassigned';

/** This replica's reconciles of a controller, per host label (zvm_host_reconcile_total), summed over results. */
async function reconcilesByHost(replica: (typeof replicas)[number], controller: string): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^zvm_host_reconcile_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.controller === controller) out.set(labels.host!, (out.get(labels.host!) ?? 0) + Number(m[2]));
  }
  return out;
}

async function getJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectlOk(['get', '-n', env().namespace, ...args, '-o', 'json'], { kubeconfig: env().kubeconfig })) as T;
}

describe('a pool over two hosts held by two replicas', () => {
  it('spreads its guests over both hosts, each created by the replica holding its host', async () => {
    const procs = suite.procs();
    await eventually('each replica holding one host', async () => {
      const leases = await hostLeases(env());
      return leases.size === 2 && new Set([...leases.values()].map((l) => l.holder)).size === 2;
    }, procs, 90_000);
    await applyObjects(env(), [{
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'spread' },
      spec: { replicas: 4, useridPrefix: 'SHP', hosts: ['h1', 'h2'], template: { spec: { vcpus: 1, memory: '512M', powerState: 'Running' } } },
    }]);
    let guests: ZGuest[] = [];
    await eventually('4 Ready pool guests', async () => {
      guests = (await getJson<{ items: ZGuest[] }>(['zg', '-l', 'zvm.dev/pool=spread'])).items;
      return guests.length === 4 && guests.every((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    }, procs, 180_000);
    expect(guests.map((g) => `${g.spec.host}/${g.spec.userid}`).sort()).toEqual(['h1/SHP00001', 'h1/SHP00003', 'h2/SHP00002', 'h2/SHP00004']);
    await eventually('the pool counting 4 Ready', async () => (await getJson<ZGuestPool>(['zgpool/spread'])).status?.readyReplicas === 4, procs, 60_000);
    // the pool belongs to the shard of its first host
    expect((await getJson<ZGuestPool>(['zgpool/spread'])).metadata.labels?.['zvm.dev/host']).toBe('h1');

    const leases = await hostLeases(env());
    const calls = readCalls(suite.sims()).filter((c) => c.target.startsWith('SHP'));
    expect(new Set(calls.map((c) => c.host))).toEqual(new Set([0, 1]));
    for (const call of calls) {
      const holder = replicas.find((r) => r.identity === leases.get(`h${call.host + 1}`)!.holder)!;
      expect({ host: call.host, peer: call.peer }).toEqual({ host: call.host, peer: holder.address });
    }
  }, 400_000);

  it('takes a class revision the unassigned Lease holder recorded (a ZGuestClass has no host); no host\'s shard records it', async () => {
    const procs = suite.procs();
    await applyObjects(env(), [
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: 'sharded-small' }, spec: { vcpus: 1, memory: '512M' } },
      {
        apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'classy' },
        spec: { replicas: 2, useridPrefix: 'SHC', hosts: ['h1', 'h2'], template: { spec: { class: 'sharded-small' } } },
      },
    ]);
    let guests: ZGuest[] = [];
    await eventually('2 Ready guests of the class pool', async () => {
      guests = (await getJson<{ items: ZGuest[] }>(['zg', '-l', 'zvm.dev/pool=classy'])).items;
      return guests.length === 2 && guests.every((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    }, procs, 180_000);
    expect(guests.map((g) => [g.spec.host, g.status?.class?.revision]).sort()).toEqual([['h1', 1], ['h2', 1]]);
    const cls = JSON.parse(await kubectlOk(['get', 'zgc', 'sharded-small', '-o', 'json'], { kubeconfig: env().kubeconfig })) as ZGuestClass;
    expect(cls.status?.revisions?.map((r) => r.revision)).toEqual([1]);
    expect(cls.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const holder = await kubectlOk(['get', 'lease', UNASSIGNED_LEASE, '-n', env().namespace, '-o', 'jsonpath={.spec.holderIdentity}'], { kubeconfig: env().kubeconfig });
    for (const r of replicas) {
      const counted = await reconcilesByHost(r, 'zguestclass');
      // only the unassigned controllers run it, and only in the replica holding their Lease
      expect({ replica: r.name, hosts: [...counted.keys()] }).toEqual({ replica: r.name, hosts: r.identity === holder ? ['(unassigned)'] : [] });
    }
  }, 300_000);

  it('places a pool with a hostSelector on the ZHosts it picks; the first of them runs the pool', async () => {
    const procs = suite.procs();
    await kubectlOk(['label', 'zhost', 'h2', 'zone=b'], { kubeconfig: env().kubeconfig });
    await applyObjects(env(), [{
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'picked' },
      spec: { replicas: 2, useridPrefix: 'SEL', hostSelector: { matchLabels: { zone: 'b' } }, template: { spec: { vcpus: 1, memory: '512M' } } },
    }]);
    let guests: ZGuest[] = [];
    await eventually('2 Ready guests of the selector pool', async () => {
      guests = (await getJson<{ items: ZGuest[] }>(['zg', '-l', 'zvm.dev/pool=picked'])).items;
      return guests.length === 2 && guests.every((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    }, procs, 180_000);
    expect(guests.map((g) => `${g.spec.host}/${g.spec.userid}`).sort()).toEqual(['h2/SEL00001', 'h2/SEL00002']);
    expect((await getJson<ZGuestPool>(['zgpool/picked'])).metadata.labels?.['zvm.dev/host']).toBe('h2');
  }, 300_000);
});
