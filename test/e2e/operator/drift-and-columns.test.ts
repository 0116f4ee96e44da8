/**
 * What the operator shows matches the host, with the chart's defaults (its controller pod as rendered, one replica):
 * a guest logged off directly on the simulator shows as Drifted within 30 s, before the controller
 * logs it on again, and the repair is counted; `kubectl get zg` shows what runs, not what the spec asks.
 */
import { spawn } from 'node:child_process';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, eventually, type LoggedProcess } from './helpers.js';
import { aZGuest } from './shared-host.js';

// the chart's controller pod as rendered (chart-pods.ts), with the chart's defaults but one replica and no REST
const suite = chartPodsForSuite({ set: ['replicas=1,rest.enabled=false'] });
const { env } = suite;
let controller: LoggedProcess | undefined;
let metricsUrl = '';

/** The bound: a change behind the operator's back shows in status within 30 s. */
const DRIFT_SEEN_MS = 30_000;

/**
 * `kubectl get -w` on one guest: every update's Drifted status and power state, as the apiserver
 * delivers them, so a condition that lasts one write is not missed between two polls.
 */
function watchGuest(name: string): { lines: string[]; stop(): void } {
  const { kubeconfig, namespace } = env();
  const template = '{.status.conditions[?(@.type=="Drifted")].status}/{.status.conditions[?(@.type=="Ready")].reason}/{.status.powerState}{"\\n"}';
  const child = spawn('kubectl', ['--kubeconfig', kubeconfig, 'get', '-n', namespace, `zg/${name}`, '-w', '-o', `jsonpath=${template}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: string[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  return { lines, stop: () => void child.kill('SIGTERM') };
}

async function ready(name: string): Promise<void> {
  const { kubeconfig, namespace } = env();
  await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', `zg/${name}`, '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
}

async function metricValue(name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(() => {
  const c = suite.install().pod().containers.controller;
  if (!c) throw new Error('the chart rendered no controller container');
  controller = c.proc;
  metricsUrl = `http://127.0.0.1:${c.ports.metrics}/metrics`;
});

describe('operator status tells the truth', () => {
  it('a guest logged off on the host shows Drifted within 30 s, before the controller logs it on again', async () => {
    const { kubeconfig, namespace } = env();
    await applyObjects(env(), [aZGuest('drifty', 'DRIFTY')]);
    await ready('drifty');
    expect((await suite.host().hypervisor.describeGuest('DRIFTY'))?.power).toBe('on');

    const watch = watchGuest('drifty');
    try {
      await suite.host().hypervisor.stop('DRIFTY');
      const loggedOffAt = Date.now();
      await eventually('Drifted=True in the watched updates', async () => watch.lines.some((l) => l.startsWith('True/')), [controller!], DRIFT_SEEN_MS);
      const seenAfterS = (Date.now() - loggedOffAt) / 1000;
      console.log(`drift seen in status ${seenAfterS.toFixed(1)} s after the logoff (default drift period)`);
      // the status said so before the repair: Ready=False DriftDetected and the host's power
      expect(watch.lines).toContain('True/DriftDetected/off');

      await eventually('the guest back on on the host', async () => (await suite.host().hypervisor.describeGuest('DRIFTY'))?.power === 'on', [controller!]);
      await eventually('Drifted=False DriftRepaired', async () => {
        const r = await kubectl(['get', '-n', namespace, 'zg/drifty', '-o', 'jsonpath={.status.conditions[?(@.type=="Drifted")].reason}'], { kubeconfig });
        return r.stdout === 'DriftRepaired';
      }, [controller!]);
      await ready('drifty');
    } finally {
      watch.stop();
    }
    const reasons = await kubectlOk(['get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=drifty', '-o', 'jsonpath={.items[*].reason}'], { kubeconfig });
    expect(reasons.split(' ')).toEqual(expect.arrayContaining(['DriftDetected', 'DriftRepaired']));
    expect(await metricValue('zvm_drift_detected_total')).toBe(1);
    expect(await metricValue('zvm_drift_repaired_total')).toBe(1);
  }, 180_000);

  it('kubectl get zg shows the memory the guest runs with and that a restart is pending', async () => {
    const { kubeconfig, namespace } = env();
    await applyObjects(env(), [{ ...aZGuest('grower', 'GROWER'), spec: { userid: 'GROWER', vcpus: 1, memory: '1G', maxMemory: '4G', powerState: 'Running' } }]);
    await ready('grower');
    await kubectlOk(['patch', '-n', namespace, 'zg/grower', '--type=merge', '-p', '{"spec":{"memory":"2G"}}'], { kubeconfig });
    await kubectlOk(['wait', '-n', namespace, '--for=condition=RestartRequired', 'zg/grower', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    const [header, row] = (await kubectlOk(['get', 'zg', 'grower', '-n', namespace], { kubeconfig })).trim().split('\n');
    expect(header).toMatch(/^NAME\s+USERID\s+HOST\s+CLASS\s+POWER\s+CPUS\s+MEMORY\s+RESTART\s+PHASE\s+READY\s+REASON\s+AGE$/);
    expect(row).toMatch(/^grower\s+GROWER\s+default\s+on\s+1\s+1G\s+True\s+Running\s+True\s+GuestRunning\s+\S+$/);
    // the host agrees: the directory already says 2G, the running guest still has 1G
    const seen = await suite.host().hypervisor.describeGuest('GROWER');
    expect(seen?.directory.memory).toMatch(/^(2G|2048M)$/);
    expect(seen?.active?.memoryMB).toBe(1024);
  }, 180_000);

  it('kubectl get zh shows a SMAPI host as not simulated, its endpoint, and the guests logged on now', async () => {
    const { kubeconfig } = env();
    const row = async () => (await kubectlOk(['get', 'zh', 'default'], { kubeconfig })).trim().split('\n');
    const [header] = await row();
    expect(header).toMatch(/^NAME\s+SIMULATED\s+ENDPOINT\s+VERSION\s+GUESTS\s+HELD BY\s+READY\s+AGE$/);
    // both guests of the tests above run; the count comes from the drift detector's batched query
    await eventually('GUESTS 2 on the ZHost row', async () => {
      const [, line] = await row();
      return new RegExp(`^default\\s+false\\s+smapi://127\\.0\\.0\\.1:${suite.host().port}\\s+\\S+\\s+2\\s+\\S+\\s+True\\s+\\S+$`).test(line ?? '');
    }, [controller!]);
  }, 120_000);
});
