/** The chart's rest.separateDeployment and rbac.secretNames switches, as rendered (helm template). */
import { find, renderChart, type Manifest } from './render.js';
import { podSpec, restrictedViolations, rules } from './workload.js';

const selector = (m: Manifest) => (m.spec as { selector: { matchLabels?: Record<string, string> } & Record<string, string> }).selector;
const podLabels = (m: Manifest) => (m.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const matches = (sel: Record<string, string>, labels: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);

describe('rest.separateDeployment', () => {
  let out: Manifest[] = [];
  beforeAll(async () => {
    out = await renderChart({ set: ['rest.separateDeployment=true'] });
  }, 60_000);

  it('runs REST in its own Deployment under its own ServiceAccount, restricted, with the admin token as a file', () => {
    const controller = find(out, 'Deployment', 'zvm-operator');
    const rest = find(out, 'Deployment', 'zvm-operator-rest');
    expect(podSpec(controller).containers.map((c) => c.name)).toEqual(['controller']);
    expect(podSpec(rest).containers.map((c) => c.name)).toEqual(['rest']);
    expect(podSpec(rest).serviceAccountName).toBe('zvm-operator-rest');
    expect(podSpec(controller).serviceAccountName).toBe('zvm-operator');
    expect(restrictedViolations(podSpec(rest))).toEqual([]);
    expect(podSpec(rest).volumes?.find((v) => v.name === 'rest-token')?.secret?.secretName).toBe('zvm-operator-rest-token');
    // neither Deployment selects the other's pods
    expect(matches(selector(controller).matchLabels!, podLabels(rest))).toBe(false);
    expect(matches(selector(rest).matchLabels!, podLabels(controller))).toBe(false);
  });

  it('routes the REST ports to the REST pods and metrics to the controller', () => {
    const main = find(out, 'Service', 'zvm-operator');
    const rest = find(out, 'Service', 'zvm-operator-rest');
    expect((main.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['metrics']);
    expect((rest.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['rest', 'rest-metrics']);
    // the ServiceMonitor selects by the release's labels, which both Services carry
    expect(rest.metadata.labels).toMatchObject(main.metadata.labels ?? {});
    expect(matches(selector(rest), podLabels(find(out, 'Deployment', 'zvm-operator-rest')))).toBe(true);
  });

  it('binds no rule about Secrets to the REST ServiceAccount, and REST\'s writes only to it', () => {
    const boundToRest = out.filter((m) => m.kind.endsWith('Binding') && (m.subjects as { name: string }[]).some((s) => s.name === 'zvm-operator-rest'));
    expect(boundToRest.map((b) => b.metadata.name).sort()).toEqual(['zvm-operator-rest', 'zvm-operator-rest-read']);
    const restRules = boundToRest.flatMap((b) => rules(find(out, (b.roleRef as { kind: string }).kind, (b.roleRef as { name: string }).name)));
    expect(restRules.flatMap((r) => r.resources)).not.toContain('secrets');
    expect(restRules.flatMap((r) => r.verbs)).not.toContain('*');
  });

  it('gives the REST ServiceAccount no status write: every status has its reconciler as its one author', () => {
    const boundToRest = out.filter((m) => m.kind.endsWith('Binding') && (m.subjects as { name: string }[]).some((s) => s.name === 'zvm-operator-rest'));
    const restRules = boundToRest.flatMap((b) => rules(find(out, (b.roleRef as { kind: string }).kind, (b.roleRef as { name: string }).name)));
    expect(restRules.length).toBeGreaterThan(0);
    expect(restRules.filter((r) => r.resources.some((res) => res.endsWith('/status') || res === '*'))).toEqual([]);
  });
});

describe('rbac.secretNames', () => {
  it('narrows the controller\'s Secret reads to the named Secrets', async () => {
    const role = find(await renderChart({ set: ['rbac.secretNames={smapi-creds,mgmt-key}'] }), 'Role');
    expect(rules(role).find((r) => r.resources.includes('secrets'))).toEqual({ apiGroups: [''], resources: ['secrets'], resourceNames: ['smapi-creds', 'mgmt-key'], verbs: ['get'] });
  }, 60_000);
});
