/**
 * The chart: `helm lint` and `helm template` pass, values.schema.json covers every value and
 * refuses bad ones, and each switch (REST sidecar, token Secret, ServiceMonitor, leader election)
 * renders what it says. Needs helm from test/kube/toolchain.sh.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

import { CHART_DIR, chartCrds } from './sources.js';
import { find, helm, helmTemplate, id, parseManifests, renderChart, type Manifest } from './render.js';
import { container, podSpec, restrictedViolations, rules } from './workload.js';

type Schema = { type?: string; properties?: Record<string, Schema>; additionalProperties?: boolean | Schema; $ref?: string; definitions?: Record<string, Schema> };

const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Schema;
const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, unknown>;

function resolve(s: Schema): Schema {
  return s.$ref ? (schema.definitions ?? {})[s.$ref.replace('#/definitions/', '')] ?? s : s;
}

/** Paths of values.yaml that the schema does not describe property by property. */
function undescribed(value: unknown, s: Schema, path: string): string[] {
  const node = resolve(s);
  if (!value || typeof value !== 'object' || Array.isArray(value) || !node.properties) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const child = node.properties?.[k];
    return child ? undescribed(v, child, `${path}.${k}`) : [`${path}.${k}`];
  });
}

describe('helm chart', () => {
  it('passes helm lint --strict, with the defaults and with every switch flipped', async () => {
    for (const set of [[], ['rest.enabled=false,metrics.serviceMonitor.enabled=true,controller.leaderElection.enabled=false,replicas=1']]) {
      const args = ['lint', '--strict', CHART_DIR, ...set.flatMap((s) => ['--set', s])];
      const r = await helm(args);
      expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: expect.stringContaining('0 chart(s) failed') });
    }
  }, 60_000);

  it('renders the operator objects by default, and the CRDs of crds/ with --include-crds', async () => {
    const out = await renderChart({ includeCrds: true });
    expect(out.map(id).sort()).toEqual([
      'ClusterRole/zvm-operator', 'ClusterRole/zvm-operator-rest', 'ClusterRoleBinding/zvm-operator', 'ClusterRoleBinding/zvm-operator-rest',
      ...[...chartCrds().values()].map((t) => `CustomResourceDefinition/${(parse(t) as Manifest).metadata.name}`),
      'Deployment/zvm-system/zvm-operator', 'NetworkPolicy/zvm-system/zvm-operator', 'PodDisruptionBudget/zvm-system/zvm-operator', 'Role/zvm-system/zvm-operator', 'RoleBinding/zvm-system/zvm-operator',
      'Secret/zvm-system/zvm-operator-rest-token', 'Service/zvm-system/zvm-operator', 'ServiceAccount/zvm-system/zvm-operator',
    ].sort());
    for (const text of chartCrds().values()) {
      const crd = parse(text) as Manifest;
      expect(find(out, 'CustomResourceDefinition', crd.metadata.name)).toEqual(crd);
    }
  }, 60_000);

  it('runs both containers under the restricted Pod Security Standard', async () => {
    const deployment = find(await renderChart(), 'Deployment');
    expect(podSpec(deployment).containers.map((c) => c.name)).toEqual(['controller', 'rest']);
    expect(restrictedViolations(podSpec(deployment))).toEqual([]);
  }, 60_000);

  it('has a schema entry for every value and accepts values.yaml', () => {
    expect(undescribed(values, schema, 'values')).toEqual([]);
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(values) ? [] : validate.errors).toEqual([]);
  });

  it('takes every duration the docs promise (Go form, as the flags parse it) and refuses the rest', () => {
    const validate = new Ajv({ strict: false }).compile(schema);
    const withDrift = (driftPeriod: string) => ({ ...values, controller: { ...(values.controller as object), driftPeriod } });
    for (const ok of ['15s', '1m30s', '500ms', '1h', '2m']) expect([ok, validate(withDrift(ok))]).toEqual([ok, true]);
    for (const bad of ['15', 'soon', '1m 30s']) expect([bad, validate(withDrift(bad))]).toEqual([bad, false]);
  });

  it.each([
    ['a typo in a key', 'controler.metricsPort=1', "at '': additional properties 'controler' not allowed"],
    ['a negative replica count', 'replicas=-1', "at '/replicas': minimum: got -1, want 0"],
    ['a port out of range', 'rest.port=70000', "at '/rest/port': maximum: got 70,000, want 65,535"],
    ['an unknown pull policy', 'image.pullPolicy=Sometimes', "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'"],
    ['a malformed quantity', 'controller.resources.limits.memory=lots', "at '/controller/resources/limits/memory': 'lots' does not match pattern"],
    ['a lease duration without unit', 'controller.leaderElection.leaseDuration=15', "at '/controller/leaderElection/leaseDuration': got number, want string"],
  ])('refuses %s', async (_what, set, message) => {
    const r = await helmTemplate({ set: [set] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  }, 60_000);

  it('drops the sidecar, its port, its RBAC and its Secret when rest.enabled=false', async () => {
    const out = await renderChart({ set: ['rest.enabled=false'] });
    const deployment = find(out, 'Deployment');
    expect(podSpec(deployment).containers.map((c) => c.name)).toEqual(['controller']);
    // the image directories stay: the controller reads file:// imports from them
    expect(podSpec(deployment).volumes?.map((v) => v.name)).toEqual(['tmp', 'images']);
    expect((find(out, 'Service').spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['metrics']);
    expect(out.filter((m) => m.kind === 'Secret' || m.metadata.name.endsWith('-rest'))).toEqual([]);
  }, 60_000);

  it('passes imageDirs to both containers and mounts the image volume at each of them', async () => {
    const out = await renderChart({ set: ['imageDirs={/srv/a,/srv/b}', 'imageVolume.persistentVolumeClaim.claimName=imgs'] });
    const pod = podSpec(find(out, 'Deployment'));
    for (const c of pod.containers as { env?: { name: string; value?: string }[]; volumeMounts?: { name: string; subPath?: string }[] }[]) {
      expect(c.env?.find((e) => e.name === 'ZVM_IMAGE_DIRS')?.value).toBe('/srv/a:/srv/b');
      // (subPath sim-state of the same volume holds simulated hosts' state: layouts.test.ts)
      expect(c.volumeMounts?.filter((m) => m.name === 'images' && m.subPath?.startsWith('dir-'))).toEqual([
        { name: 'images', mountPath: '/srv/a', subPath: 'dir-0' }, { name: 'images', mountPath: '/srv/b', subPath: 'dir-1' },
      ]);
    }
    expect(pod.volumes?.find((v) => v.name === 'images')).toEqual({ name: 'images', persistentVolumeClaim: { claimName: 'imgs' } });
  }, 60_000);

  it('generates the admin token Secret, or mounts an existing one', async () => {
    const generated = await renderChart();
    const secret = find(generated, 'Secret');
    const token = Buffer.from((secret.data as { token: string }).token, 'base64').toString();
    expect(token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');

    const existing = await renderChart({ set: ['rest.adminToken.existingSecret=my-token,rest.adminToken.secretKey=admin'] });
    expect(existing.some((m) => m.kind === 'Secret')).toBe(false);
    const volume = podSpec(find(existing, 'Deployment')).volumes?.find((v) => v.name === 'rest-token');
    expect(volume?.secret).toMatchObject({ secretName: 'my-token', items: [{ key: 'admin', path: 'token' }] });
    expect(container(find(existing, 'Deployment'), 'rest')?.args).toContain('--admin-token-file=/etc/zvm-operator/token/token');
  }, 60_000);

  it('renders a ServiceMonitor only on request, selecting the Service and its metrics ports (controller, REST)', async () => {
    expect((await renderChart()).some((m) => m.kind === 'ServiceMonitor')).toBe(false);
    const out = await renderChart({ set: ['metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.interval=15s', 'metrics.serviceMonitor.labels.release=prom'] });
    const monitor = find(out, 'ServiceMonitor');
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.metadata.labels?.release).toBe('prom');
    const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; interval: string }[] };
    const service = find(out, 'Service');
    expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.endpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics', interval: '15s' }),
      expect.objectContaining({ port: 'rest-metrics', path: '/metrics', interval: '15s' }),
    ]);
    expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(expect.arrayContaining(['metrics', 'rest-metrics']));
  }, 60_000);

  it('passes leader election settings, image and replicas to the Deployment', async () => {
    const out = await renderChart({ set: ['replicas=3,image.tag=1.2.3,controller.leaderElection.leaseDuration=30s,controller.leaderElection.retryPeriod=5s'] });
    const deployment = find(out, 'Deployment');
    expect((deployment.spec as { replicas: number }).replicas).toBe(3);
    const controller = container(deployment, 'controller');
    expect(controller?.image).toBe('ghcr.io/zvm-operator/zvm-operator:1.2.3');
    expect(controller?.args).toEqual(expect.arrayContaining([
      '--leader-election-id=zvm-operator-leader', '--leader-elect-lease-duration=30s', '--leader-elect-renew-deadline=10s', '--leader-elect-retry-period=5s',
    ]));

    const single = container(find(await renderChart({ set: ['replicas=1,controller.leaderElection.enabled=false'] }), 'Deployment'), 'controller');
    expect(single?.args).toContain('--no-leader-elect');
    expect(single?.args?.some((a) => a.startsWith('--leader-elect'))).toBe(false);
  }, 60_000);

  it('passes the host-unreachable grace only when it is set, and refuses one that is no duration', async () => {
    const args = async (set: string[]) => container(find(await renderChart({ set }), 'Deployment'), 'controller')?.args ?? [];
    expect((await args([])).some((a) => a.startsWith('--host-unreachable-grace'))).toBe(false);
    expect(await args(['controller.hostUnreachableGrace=45s'])).toContain('--host-unreachable-grace=45s');
    const bad = await helmTemplate({ set: ['controller.hostUnreachableGrace=soon'] });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('hostUnreachableGrace');
  }, 60_000);

  it('names objects after the release and binds the RBAC to its ServiceAccount', async () => {
    const out = await renderChart({ release: 'lab', namespace: 'zvm-lab' });
    expect(find(out, 'Deployment').metadata).toMatchObject({ name: 'lab-zvm-operator', namespace: 'zvm-lab' });
    const binding = find(out, 'ClusterRoleBinding', 'lab-zvm-operator');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'lab-zvm-operator', namespace: 'zvm-lab' }]);
    expect(rules(find(out, 'Role')).map((r) => r.resources).flat()).toEqual(['leases', 'secrets']);
  }, 60_000);

  it('renders nothing helm itself would refuse to parse', async () => {
    const r = await helmTemplate({ set: ['podAnnotations.a=b,podLabels.team=zvm,nodeSelector.zone=z1,priorityClassName=high'] });
    expect(r.code).toBe(0);
    const deployment = find(parseManifests(r.stdout), 'Deployment');
    const template = (deployment.spec as { template: { metadata: { labels: Record<string, string>; annotations: Record<string, string> } } }).template;
    expect(template.metadata).toMatchObject({ annotations: { a: 'b' }, labels: { team: 'zvm' } });
  }, 60_000);
});
