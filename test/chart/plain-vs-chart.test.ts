/**
 * deploy/ (kubectl apply -k) and the chart (release zvm-operator in zvm-system, default values)
 * install the same thing: same objects, same RBAC rules and bindings, same pod.
 */
import { find, id, renderChart, renderDeploy, type Manifest } from './render.js';
import { controllerClusterRules, namespaceRules, restClusterRules } from './sources.js';
import { deploymentSpec, podSpec, restrictedViolations, rules } from './workload.js';

let plain: Manifest[] = [];
let chart: Manifest[] = [];

beforeAll(async () => {
  plain = await renderDeploy();
  chart = await renderChart({ includeCrds: true });
}, 60_000);

/** Labels that say who rendered an object, not what it is. */
function withoutToolLabels(m: Manifest): Manifest {
  const labels = { ...(m.metadata.labels ?? {}) };
  for (const key of ['helm.sh/chart', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/version']) delete labels[key];
  return { ...m, metadata: { ...m.metadata, labels } };
}

describe('deploy/ and the chart', () => {
  it('render the same objects, but for the Namespace (plain) and the generated token Secret (chart)', () => {
    expect(plain.filter((m) => m.kind !== 'Namespace').map(id).sort()).toEqual(chart.filter((m) => m.kind !== 'Secret').map(id).sort());
    expect(find(plain, 'Namespace').metadata.name).toBe('zvm-system');
    const volume = podSpec(find(plain, 'Deployment')).volumes?.find((v) => v.name === 'rest-token');
    expect(volume?.secret?.secretName).toBe(find(chart, 'Secret').metadata.name);
  });

  it('grant identical RBAC rules, exactly the ones the operator needs', () => {
    for (const kind of ['ClusterRole', 'Role']) {
      for (const role of plain.filter((m) => m.kind === kind)) expect(rules(find(chart, kind, role.metadata.name))).toEqual(rules(role));
    }
    expect(rules(find(plain, 'ClusterRole', 'zvm-operator'))).toEqual(controllerClusterRules());
    expect(rules(find(plain, 'ClusterRole', 'zvm-operator-rest'))).toEqual(restClusterRules());
    expect(rules(find(plain, 'Role', 'zvm-operator'))).toEqual(namespaceRules());
    const everything = plain.filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role').flatMap(rules);
    expect(everything.flatMap((r) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
  });

  it('bind the roles to the same ServiceAccount', () => {
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      for (const b of plain.filter((m) => m.kind === kind)) {
        const c = find(chart, kind, b.metadata.name);
        expect({ roleRef: c.roleRef, subjects: c.subjects }).toEqual({ roleRef: b.roleRef, subjects: b.subjects });
        expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: 'zvm-operator', namespace: 'zvm-system' }]);
      }
    }
  });

  it('run the same pod: containers, args, probes, resources, security contexts and volumes', () => {
    const p = deploymentSpec(find(plain, 'Deployment'));
    const c = deploymentSpec(find(chart, 'Deployment'));
    expect(c.replicas).toBe(p.replicas);
    expect(c.selector).toEqual(p.selector);
    expect(c.template.metadata.labels).toEqual(p.template.metadata.labels);
    expect(c.template.spec).toEqual(p.template.spec);
    expect(restrictedViolations(p.template.spec)).toEqual([]);
  });

  it('serve the same Service, ServiceAccount, NetworkPolicy and CRDs', () => {
    for (const kind of ['Service', 'ServiceAccount', 'NetworkPolicy', 'CustomResourceDefinition']) {
      for (const m of plain.filter((x) => x.kind === kind)) {
        const c = withoutToolLabels(find(chart, kind, m.metadata.name));
        expect({ ...c, metadata: { ...c.metadata, labels: undefined } }).toEqual({ ...m, metadata: { ...m.metadata, labels: undefined } });
      }
    }
    expect(withoutToolLabels(find(chart, 'Service')).metadata.labels).toEqual(find(plain, 'Service').metadata.labels);
  });
});
