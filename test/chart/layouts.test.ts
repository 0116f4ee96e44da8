/**
 * The chart's layouts as rendered: leader election off only with one replica (values.schema.json),
 * a PodDisruptionBudget and a soft anti-affinity for every Deployment with several replicas,
 * NOTES.txt naming the objects each layout creates, the simulated hosts' state shared by the
 * controller and REST, and default resources that cover the measured memory model.
 */
import { find, helmTemplate, renderChart, renderNotes, type Manifest } from './render.js';
import { SIM_STATE_DIR } from './sources.js';
import { container, deploymentSpec, podSpec } from './workload.js';

const pdbs = (out: Manifest[]) => out.filter((m) => m.kind === 'PodDisruptionBudget');
const affinityOf = (m: Manifest) => (podSpec(m) as { affinity?: unknown }).affinity;
const softSpread = (labels: Record<string, string>) => ({
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } } }],
  },
});

describe('leader election and replicas', () => {
  it('refuses leaderElection.enabled=false with the default 2 replicas, with a schema message', async () => {
    const r = await helmTemplate({ set: ['controller.leaderElection.enabled=false'] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('values don\'t meet the specifications of the schema');
    expect(r.stderr).toContain("at '/replicas': maximum: got 2, want 1"); // Helm 4: JSON pointer, then the rule
  }, 60_000);

  it('accepts it with replicas 0 or 1, and leader election with any count', async () => {
    for (const set of ['controller.leaderElection.enabled=false,replicas=1', 'controller.leaderElection.enabled=false,replicas=0', 'replicas=5']) {
      const r = await helmTemplate({ set: [set] });
      expect({ set, code: r.code, stderr: r.stderr }).toEqual({ set, code: 0, stderr: '' });
    }
  }, 60_000);
});

describe('several replicas', () => {
  it('get a PodDisruptionBudget and a preferred anti-affinity by hostname, per Deployment', async () => {
    const out = await renderChart({ set: ['rest.separateDeployment=true'] });
    const controller = find(out, 'Deployment', 'zvm-operator');
    const rest = find(out, 'Deployment', 'zvm-operator-rest');
    expect(pdbs(out).map((p) => [p.metadata.name, p.apiVersion, p.spec])).toEqual([
      ['zvm-operator', 'policy/v1', { maxUnavailable: 1, selector: deploymentSpec(controller).selector }],
      ['zvm-operator-rest', 'policy/v1', { maxUnavailable: 1, selector: deploymentSpec(rest).selector }],
    ]);
    expect(affinityOf(controller)).toEqual(softSpread(deploymentSpec(controller).selector.matchLabels));
    expect(affinityOf(rest)).toEqual(softSpread(deploymentSpec(rest).selector.matchLabels));
  }, 60_000);

  it('one replica gets neither; an explicit affinity replaces the default one; none turns it off', async () => {
    const single = await renderChart({ set: ['replicas=1,rest.separateDeployment=true,rest.replicas=1'] });
    expect(pdbs(single)).toEqual([]);
    expect(single.filter((m) => m.kind === 'Deployment').map(affinityOf)).toEqual([undefined, undefined]);

    const own = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }] } } };
    const custom = await renderChart({ set: ['affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=zone', 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=In', 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values={z1}'] });
    expect(affinityOf(find(custom, 'Deployment'))).toEqual(own);

    const off = await renderChart({ set: ['highAvailability.podAntiAffinity=none,highAvailability.maxUnavailable=50%'] });
    expect(affinityOf(find(off, 'Deployment'))).toBeUndefined();
    expect((find(off, 'PodDisruptionBudget').spec as { maxUnavailable: unknown }).maxUnavailable).toBe('50%');
  }, 60_000);

  it('refuses a budget that would block every drain', async () => {
    const r = await helmTemplate({ set: ['highAvailability.maxUnavailable=0'] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("at '/highAvailability/maxUnavailable': minimum: got 0, want 1");
  }, 60_000);
});

describe('simulated hosts', () => {
  it('keep their state where both containers of the pod mount it, and REST reads it there', async () => {
    const deployment = find(await renderChart(), 'Deployment');
    for (const name of ['controller', 'rest']) {
      const c = container(deployment, name) as { args?: string[]; volumeMounts?: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[] };
      expect(c.args).toContain(`--sim-state-dir=${SIM_STATE_DIR}`);
      expect(c.volumeMounts?.find((m) => m.mountPath === SIM_STATE_DIR)).toEqual({ name: 'images', mountPath: SIM_STATE_DIR, subPath: 'sim-state', ...(name === 'rest' ? { readOnly: true } : {}) });
    }
  }, 60_000);

  it('reach the separate REST pods through the same volume (shared when imageVolume is)', async () => {
    const out = await renderChart({ set: ['rest.separateDeployment=true', 'imageVolume.persistentVolumeClaim.claimName=shared'] });
    const rest = find(out, 'Deployment', 'zvm-operator-rest');
    expect(container(rest, 'rest')?.args).toContain(`--sim-state-dir=${SIM_STATE_DIR}`);
    expect(podSpec(rest).volumes?.find((v) => v.name === 'images')).toEqual({ name: 'images', persistentVolumeClaim: { claimName: 'shared' } });
  }, 60_000);
});

describe('default resources', () => {
  // README "Sizing": ≈ 255 MB + 120 kB per held guest; bench/shard.ts measured 558 and 638 MB with 2 400 guests per replica
  const MB = 1e6;
  const model = (guests: number) => 255 * MB + guests * 120e3;
  const bytes = (q: string) => Number(q.replace(/(Mi|Gi)$/, '')) * (q.endsWith('Gi') ? 2 ** 30 : 2 ** 20);

  it('request the model for 2 000 held guests and limit above the highest measurement with headroom', async () => {
    const resources = container(find(await renderChart(), 'Deployment'), 'controller')?.resources;
    expect(bytes(resources?.requests?.memory ?? '0')).toBeGreaterThanOrEqual(model(2_000));
    expect(bytes(resources?.limits?.memory ?? '0')).toBeGreaterThanOrEqual(1.5 * 638 * MB);
  }, 60_000);
});

describe('NOTES.txt', () => {
  const restLine = (notes: string) => notes.split('\n').filter((l) => /Service|port-forward|get secret/.test(l)).map((l) => l.trim());

  it('names the Service, Deployment and Secret of the REST sidecar by default', async () => {
    const notes = await renderNotes();
    expect(notes).toContain('zvm-operator 0.1.0 is installed in namespace zvm-system: 2 controller replicas share the ZHosts on per-host Leases.');
    expect(notes).toContain('with 2 replicas use SMAPI hosts');
    expect(restLine(notes)).toEqual([
      '3. REST (feilong-compatible) on Service zvm-operator, port 8888:',
      'kubectl -n zvm-system port-forward svc/zvm-operator 8888:8888',
      'Admin token:  kubectl -n zvm-system get secret zvm-operator-rest-token -o jsonpath=\'{.data.token}\' | base64 -d',
    ]);
  }, 60_000);

  it('names the separate REST Service with rest.separateDeployment=true', async () => {
    const notes = await renderNotes({ release: 'lab', namespace: 'zvm-lab', set: ['rest.separateDeployment=true'] });
    expect(restLine(notes)).toEqual([
      '3. REST (feilong-compatible) on Service lab-zvm-operator-rest, port 8888 (Deployment lab-zvm-operator-rest, without access to Secrets):',
      'kubectl -n zvm-lab port-forward svc/lab-zvm-operator-rest 8888:8888',
      'Admin token:  kubectl -n zvm-lab get secret lab-zvm-operator-rest-token -o jsonpath=\'{.data.token}\' | base64 -d',
    ]);
  }, 60_000);

  it('describes one replica without leader election, and no REST when it is off', async () => {
    const single = await renderNotes({ set: ['replicas=1,controller.leaderElection.enabled=false'] });
    expect(single).toContain('installed in namespace zvm-system: one controller replica, holding every ZHost without leader election.');
    expect(single).not.toContain('use SMAPI hosts');
    expect(await renderNotes({ set: ['replicas=1'] })).toContain('one controller replica, holding every ZHost on its Leases.');
    expect(restLine(await renderNotes({ set: ['rest.enabled=false'] }))).toEqual([]);
  }, 60_000);
});
