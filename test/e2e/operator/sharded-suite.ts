/**
 * One sharded e2e suite's world, set up once per file: a real apiserver, `zvm-operator sim` serving
 * `hosts` hosts as ZHosts h1..hn, and the chart's controller pods started from the given loopback
 * addresses (sharding-env.ts). Registers the suite's beforeAll/afterAll, as chart-suite.ts does for
 * the unsharded suites.
 */
import { started } from './chart-suite.js';
import { startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv } from './helpers.js';
import type { Manifest } from '../../chart/render.js';
import { shardingDeployment, startReplica, startSimHosts, type Replica, type SimHosts } from './sharding-env.js';

export interface ShardedSuiteOptions {
  hosts: number;
  /** one replica started before the tests per address (pod index = position) */
  addresses: string[];
  /** each simulated SMAPI call's latency; default none */
  latencyMs?: number;
}

export interface ShardedSuite {
  env(): OperatorEnv;
  sims(): SimHosts;
  /** the replicas running, in start order: a test that stops one takes it out (`remove`) */
  replicas: Replica[];
  procs(): LoggedProcess[];
  /** takes a stopped replica out of `replicas` */
  remove(replica: Replica): void;
  /** pod `index` of the Deployment, connecting from `address`; stopped with the suite */
  addReplica(index: number, address: string): Promise<Replica>;
}

export function shardedReplicasForSuite(options: ShardedSuiteOptions): ShardedSuite {
  let o: OperatorEnv | undefined;
  let sims: SimHosts | undefined;
  let deployment: Manifest | undefined;
  const replicas: Replica[] = [];
  const start = (index: number, address: string): Promise<Replica> =>
    startReplica(started(o, 'the kube test env'), started(deployment, 'the controller Deployment'), index, address);
  const addReplica = async (index: number, address: string): Promise<Replica> => {
    const replica = await start(index, address);
    replicas.push(replica);
    return replica;
  };
  beforeAll(async () => {
    o = await startOperatorEnv();
    sims = await startSimHosts(o, options.hosts, options.latencyMs);
    deployment = await shardingDeployment(o);
    replicas.push(...(await Promise.all(options.addresses.map((address, i) => start(i, address)))));
  }, 240_000);
  afterAll(async () => {
    for (const r of replicas) {
      r.proc.child.kill('SIGCONT'); // a test may have left one paused
      await stopProcess(r.proc);
    }
    if (sims) await stopProcess(sims.sim);
    await o?.env.stop();
  }, 60_000);
  return {
    env: () => started(o, 'the kube test env'),
    sims: () => started(sims, 'the simulated hosts'),
    replicas,
    procs: () => replicas.map((r) => r.proc),
    addReplica,
    remove: (replica) => {
      const at = replicas.indexOf(replica);
      if (at >= 0) replicas.splice(at, 1);
    },
  };
}
