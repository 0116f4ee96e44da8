/**
 * What Prometheus and Grafana see (issue 24), on live processes over real HTTP: the chart's pod (controller
 * and REST sidecar with the rendered args) against a real apiserver with a `zvm-operator sim` host, and
 * `zvm-operator standalone`.
 * Each exports exactly the families docs/metrics.md lists for it; every metric the chart's Grafana
 * dashboard queries is exported by one of them; SMAPI series carry the ZHost name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { find } from '../../chart/render.js';
import { crash, startOperator, stopGracefully, type Operator } from '../../integration/standalone/crash-storm-support.js';
import { dashboardMetricNames, type Dashboard } from '../../monitoring/dashboard.js';
import { cataloguedFamilies, familiesOf, missing, scrape } from '../../monitoring/scrape.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, eventually } from './helpers.js';
import { aZGuest } from './shared-host.js';

const ADMIN_TOKEN = 'e2e-monitoring-token';
let standalone: Operator | undefined;
let standaloneDir = '';
const urls = { controller: '', rest: '', restApi: '' };
// the chart's pod as rendered (chart-pods.ts), with the dashboard ConfigMap
const suite = chartPodsForSuite({
  prepare: (o) => applyObjects(o, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rest-admin' }, stringData: { token: ADMIN_TOKEN } }]),
  set: ['replicas=1,rest.adminToken.existingSecret=rest-admin,monitoring.dashboards.enabled=true'],
  cleanup: async () => {
    if (standalone) await stopGracefully(standalone.proc).catch(() => crash(standalone!.proc));
    if (standaloneDir) rmSync(standaloneDir, { recursive: true, force: true });
  },
});

beforeAll(async () => {
  const pod = suite.install().pod();
  urls.controller = `http://127.0.0.1:${pod.containers.controller?.ports.metrics}/metrics`;
  urls.rest = `http://127.0.0.1:${pod.containers.rest?.ports['rest-metrics']}/metrics`;
  urls.restApi = `http://127.0.0.1:${pod.containers.rest?.ports.rest}`;
  standaloneDir = mkdtempSync(join(tmpdir(), 'zvm-monitoring-'));
  standalone = await startOperator(standaloneDir);
  const procs = Object.values(pod.containers).map((c) => c.proc);
  await eventually('the REST metrics to answer', async () => (await fetch(urls.rest).catch(() => undefined))?.ok === true, procs);
  await applyObjects(suite.env(), [aZGuest('mon-guest', 'MONG1')]);
}, 240_000);

describe('live /metrics', () => {
  it.each(['controller', 'rest'] as const)('the %s exports exactly the families docs/metrics.md lists for it', async (process) => {
    const live = familiesOf(await scrape(urls[process]));
    const documented = cataloguedFamilies(process);
    expect({ undocumented: missing(live, documented), notExported: missing(documented, live) }).toEqual({ undocumented: [], notExported: [] });
  });

  it('labels the controller\'s SMAPI series with the ZHost name and counts its guests by host and phase', async () => {
    const controller = [suite.install().pod().containers.controller!.proc];
    await eventually('SMAPI calls to host default in the controller metrics', async () =>
      /^zvm_smapi_calls_total\{host="default",function="[A-Za-z_]+",outcome="success"\} [1-9]/m.test(await scrape(urls.controller)), controller);
    await eventually('the guest counted on host default', async () =>
      /^zvm_guests\{host="default",phase="[A-Za-z]+"\} 1$/m.test(await scrape(urls.controller)), controller);
  });

  it('counts the sidecar\'s REST requests by route template', async () => {
    const token = (await fetch(`${urls.restApi}/token`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN } })).headers.get('x-auth-token') ?? '';
    expect((await fetch(`${urls.restApi}/guests/NOSUCH9`, { headers: { 'X-Auth-Token': token } })).status).toBe(404);
    expect(await scrape(urls.rest)).toMatch(/^zvm_rest_requests_total\{route="\/guests\/:userid",method="GET",status="404"\} 1$/m);
  });
});

describe('the Grafana dashboard of the chart', () => {
  it('queries only metrics that the live processes export', async () => {
    const configMap = find(suite.install().objects, 'ConfigMap', 'zvm-operator-dashboard');
    expect(configMap.metadata.labels?.grafana_dashboard).toBe('1');
    const dashboard = JSON.parse((configMap.data as Record<string, string>)['zvm-operator.json']!) as Dashboard;
    const exported = new Set<string>();
    for (const url of [urls.controller, urls.rest, `${standalone!.adminUrl}/metrics`]) for (const f of familiesOf(await scrape(url))) exported.add(f);
    const names = dashboardMetricNames(dashboard);
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n) => !exported.has(n) && !exported.has(n.replace(/_(bucket|count|sum)$/, '')) && n !== 'up')).toEqual([]);
  });
});
