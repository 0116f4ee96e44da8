/**
 * The chart's NetworkPolicies (networkPolicy.*): on by default, one per Deployment, selecting exactly
 * that Deployment's pods; ingress only to the REST and metrics ports the pods expose (never the probe
 * port, which the kubelet reaches from the node), from the peers the values name; egress only to DNS,
 * the apiserver, SMAPI and SSH. Needs helm from test/kube/toolchain.sh.
 */
import { find, helmTemplate, renderChart, type Manifest } from './render.js';
import { deploymentSpec } from './workload.js';

interface Port { protocol: string; port: number }
interface Peer { podSelector?: object; namespaceSelector?: object; ipBlock?: { cidr: string } }
interface PolicySpec {
  podSelector: { matchLabels: Record<string, string> };
  policyTypes: string[];
  ingress: Array<{ from: Peer[]; ports: Port[] }>;
  egress: Array<{ to?: Peer[]; ports: Port[] }>;
}

const spec = (m: Manifest): PolicySpec => m.spec as PolicySpec;
const policies = (out: Manifest[]): Manifest[] => out.filter((m) => m.kind === 'NetworkPolicy');
const tcp = (...ports: number[]): Port[] => ports.map((port) => ({ protocol: 'TCP', port }));
const ingressPorts = (p: PolicySpec): number[] => p.ingress.flatMap((r) => r.ports.map((x) => x.port)).sort((a, b) => a - b);
/** The ports of a Deployment's containers, but the probe port (the kubelet's, from the node). */
const servedPorts = (d: Manifest): number[] =>
  deploymentSpec(d).template.spec.containers.flatMap((c) => c.ports ?? []).filter((p) => p.name !== 'probes').map((p) => p.containerPort).sort((a, b) => a - b);

describe('networkPolicy', () => {
  it('by default lets in only REST and metrics, from the release namespace, and out only to DNS, apiserver, SMAPI and SSH', async () => {
    const out = await renderChart();
    expect(policies(out)).toHaveLength(1);
    const deployment = find(out, 'Deployment');
    const p = spec(find(out, 'NetworkPolicy', 'zvm-operator'));
    expect(p.podSelector.matchLabels).toEqual(deploymentSpec(deployment).selector.matchLabels);
    expect(p.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(p.ingress).toEqual([
      { from: [{ podSelector: {} }], ports: tcp(8888) },
      { from: [{ podSelector: {} }], ports: tcp(8080, 8082) },
    ]);
    expect(ingressPorts(p)).toEqual(servedPorts(deployment));
    const anywhere = [{ ipBlock: { cidr: '0.0.0.0/0' } }];
    expect(p.egress).toEqual([
      { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
      { to: anywhere, ports: tcp(443, 6443) },
      { to: anywhere, ports: tcp(44444) },
      { to: anywhere, ports: tcp(22) },
    ]);
  }, 60_000);

  it('with rest.separateDeployment gives each Deployment its own policy, with its own ports', async () => {
    const out = await renderChart({ set: ['rest.separateDeployment=true'] });
    expect(policies(out).map((m) => m.metadata.name).sort()).toEqual(['zvm-operator', 'zvm-operator-rest']);
    for (const [policy, deployment] of [['zvm-operator', 'zvm-operator'], ['zvm-operator-rest', 'zvm-operator-rest']] as const) {
      const p = spec(find(out, 'NetworkPolicy', policy));
      const d = find(out, 'Deployment', deployment);
      expect(p.podSelector.matchLabels).toEqual(deploymentSpec(d).selector.matchLabels);
      expect(ingressPorts(p)).toEqual(servedPorts(d));
    }
    expect(ingressPorts(spec(find(out, 'NetworkPolicy', 'zvm-operator')))).toEqual([8080]);
  }, 60_000);

  it('lets nobody in on a port whose peer list is empty, and narrows egress to the named endpoints', async () => {
    const out = await renderChart({
      set: ['networkPolicy.ingress.rest=null', 'networkPolicy.egress.smapi.to[0].ipBlock.cidr=10.1.2.0/24,networkPolicy.egress.smapi.ports={44444,44445}',
        'networkPolicy.egress.ssh.to=null', 'networkPolicy.ingress.metrics[0].namespaceSelector.matchLabels.team=monitoring'],
    });
    const p = spec(find(out, 'NetworkPolicy'));
    expect(p.ingress).toEqual([{ from: [{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }], ports: tcp(8080, 8082) }]);
    expect(p.egress).toContainEqual({ to: [{ ipBlock: { cidr: '10.1.2.0/24' } }], ports: tcp(44444, 44445) });
    expect(p.egress.flatMap((r) => r.ports.map((x) => x.port))).not.toContain(22);
  }, 60_000);

  it('renders none with networkPolicy.enabled=false', async () => {
    expect(policies(await renderChart({ set: ['networkPolicy.enabled=false'] }))).toEqual([]);
  }, 60_000);

  it('refuses a peer that is no NetworkPolicyPeer, naming the value', async () => {
    const r = await helmTemplate({ set: ['networkPolicy.ingress.rest[0].pods=all'] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("at '/networkPolicy/ingress/rest/0': additional properties 'pods' not allowed");
  }, 60_000);
});
