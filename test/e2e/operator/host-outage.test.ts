/**
 * A host whose SMAPI goes away, on the kube tier (README "When a host is unreachable"): the chart's
 * controller pod as rendered (one replica, no REST) against a real kube-apiserver, the host a
 * `zvm-operator sim` process with a state file. The simulator is killed (SIGKILL), kept down past the
 * outage grace (set through the chart: controller.hostUnreachableGrace) and started again on its port: `kubectl get zg` shows every guest Ready=Unknown
 * (HostUnreachable, phase Unknown) and then Ready again; the ZHost says HostUnreachable meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZGuest, ZHost } from '../../../src/api/index.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { installChart, type ChartInstall } from './chart-pods.js';
import { applyObjects, eventually, logNumber, spawnCli, startOperatorEnv, stopProcess, type LoggedProcess, type OperatorEnv } from './helpers.js';
import { aZGuest } from './shared-host.js';

const GRACE_MS = 4_000; // the chart's controller.hostUnreachableGrace below (--host-unreachable-grace)
const BOUND_MS = 120_000;
const GUESTS = [['out-a', 'OUTA'], ['out-b', 'OUTB']] as const;

let o: OperatorEnv | undefined;
let sim: LoggedProcess | undefined;
let install: ChartInstall | undefined;
const stateDir = mkdtempSync(join(tmpdir(), 'zvm-e2e-outage-'));
const password = randomBytes(8).toString('hex');

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}

function startSim(port: number): LoggedProcess {
  return spawnCli(env(), 'sim', ['sim', '--port', String(port), '--userid', 'MAINT', '--password', password, '--state', join(stateDir, 'sim.db')]);
}

async function getJson<T>(resource: string): Promise<T> {
  const { kubeconfig, namespace } = env();
  return JSON.parse(await kubectlOk(['get', '-n', namespace, resource, '-o', 'json'], { kubeconfig })) as T;
}

const guests = async () => (await getJson<{ items: ZGuest[] }>('zguests')).items;
const ready = (g: { status?: { conditions?: { type: string; status: string; reason: string }[] } }) => g.status?.conditions?.find((c) => c.type === 'Ready');

beforeAll(async () => {
  o = await startOperatorEnv();
  sim = startSim(0);
  const port = await logNumber(sim, 'smapiPort');
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password } },
    { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { smapi: { host: '127.0.0.1', port, credentialsSecret: 'sim-smapi' } } },
  ]);
  install = await installChart(o, { set: ['replicas=1,rest.enabled=false,controller.driftPeriod=2s,controller.hostUnreachableGrace=4s'] });
}, 240_000);

afterAll(async () => {
  await install?.stop();
  if (sim) await stopProcess(sim);
  await o?.env.stop();
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('a host whose SMAPI goes away (kube)', () => {
  it('shows every guest Ready=Unknown (HostUnreachable) while the host is down, and Ready again when it is back', async () => {
    const { kubeconfig, namespace } = env();
    const watch = install ? [install.pod().containers.controller!.proc] : [];
    await applyObjects(env(), GUESTS.map(([name, userid]) => aZGuest(name, userid, 'Stopped')));
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', ...GUESTS.map(([n]) => `zg/${n}`), '--timeout=90s'], { kubeconfig, timeoutMs: 100_000 });
    const port = await logNumber(sim!, 'smapiPort');

    sim!.child.kill('SIGKILL');
    await sim!.exited;
    const killedAt = Date.now();
    await eventually('every guest Ready=Unknown (HostUnreachable)', async () => {
      const all = await guests();
      return all.length === GUESTS.length && all.every((g) => ready(g)?.status === 'Unknown' && ready(g)?.reason === 'HostUnreachable' && g.status?.phase === 'Unknown');
    }, watch, BOUND_MS);
    const unknownAfter = Date.now() - killedAt;
    const table = await kubectlOk(['get', '-n', namespace, 'zg'], { kubeconfig });
    for (const [name] of GUESTS) expect(table).toMatch(new RegExp(`^${name}\\s.*\\bUnknown\\b.*\\bHostUnreachable\\b`, 'm'));
    const host = await getJson<ZHost>('zhost/default');
    expect(ready(host)).toMatchObject({ status: 'False', reason: 'HostUnreachable' });
    // nothing was changed while the host was away: the specs are as applied
    for (const g of await guests()) expect(g.spec.powerState).toBe('Stopped');

    const down = Date.now() - killedAt;
    if (down < GRACE_MS) await new Promise((r) => setTimeout(r, GRACE_MS - down));
    sim = startSim(port);
    await logNumber(sim, 'smapiPort');
    const backAt = Date.now();
    await eventually('every guest Ready again', async () => (await guests()).every((g) => ready(g)?.status === 'True'), [...watch, sim], BOUND_MS);
    const readyAfter = Date.now() - backAt;
    await eventually('the ZHost Ready again', async () => ready(await getJson<ZHost>('zhost/default'))?.status === 'True', watch, BOUND_MS);
    console.log(`host outage (kube): kill → all Unknown ${(unknownAfter / 1000).toFixed(1)} s; host back → all Ready ${(readyAfter / 1000).toFixed(1)} s`);
  }, 400_000);
});
