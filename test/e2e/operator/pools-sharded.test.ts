/**
 * A pool spread over two hosts held by two controller replicas (the chart's pods, per-host Leases):
 * the pool runs in the replica holding its first host and only writes ZGuests; each guest is created
 * on its host by the replica holding that host (the simulator's call log names the caller).
 */
import type { ZGuest, ZGuestPool } from '../../../src/api/index.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { applyObjects, eventually } from './helpers.js';
import { shardedReplicasForSuite } from './sharded-suite.js';
import { hostLeases, readCalls } from './sharding-env.js';

const suite = shardedReplicasForSuite({ hosts: 2, addresses: ['127.0.0.21', '127.0.0.22'] });
const env = suite.env;
const replicas = suite.replicas;

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
