/**
 * docs/metrics.md is generated from the registered metrics and a live `zvm-operator standalone`
 * exports exactly what it lists for standalone: a metric added or removed without the reference
 * fails here (`npm run docs:metrics` regenerates it).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { METRIC_AREAS } from '../../../src/cmd/metrics-catalogue.js';
import { areaMetrics, renderMetricsDoc } from '../../../src/cmd/render-metrics-doc.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { crash, startOperator, stopGracefully, type Operator } from '../standalone/crash-storm-support.js';
import { REPO } from '../../chart/sources.js';
import { cataloguedFamilies, familiesOf, missing, scrape } from '../../monitoring/scrape.js';

const STANDARD_PREFIXES = ['controller_runtime_', 'workqueue_', 'leader_election_', 'rest_client_'];

describe('metrics reference', () => {
  it('docs/metrics.md is what `npm run docs:metrics` writes', () => {
    expect(readFileSync(join(REPO, 'docs/metrics.md'), 'utf8')).toBe(renderMetricsDoc());
  });

  it('names project metrics zvm_* with base-unit suffixes, and keeps the Kubernetes standard names', () => {
    const bad: string[] = [];
    for (const area of METRIC_AREAS.filter((a) => !a.source.startsWith('prom-client'))) {
      for (const m of areaMetrics(area)) {
        if (!m.name.startsWith('zvm_') && !STANDARD_PREFIXES.some((p) => m.name.startsWith(p))) bad.push(`${m.name}: neither zvm_ nor a standard name`);
        if (m.type === 'counter' && !m.name.endsWith('_total')) bad.push(`${m.name}: a counter ends in _total`);
        if (m.type === 'histogram' && !/_(seconds|bytes)$/.test(m.name)) bad.push(`${m.name}: a histogram names its unit`);
        if (m.labels.some((l) => ['userid', 'guest', 'name_of_guest', 'path', 'url'].includes(l))) bad.push(`${m.name}: unbounded label`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('a live standalone process', () => {
  let dir: string;
  let op: Operator | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zvm-metrics-'));
    op = await startOperator(dir, ['--smapi-tcp']);
  }, 150_000);
  afterAll(async () => {
    if (op) await stopGracefully(op.proc).catch(() => crash(op!.proc));
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports exactly the families docs/metrics.md lists for standalone', async () => {
    const live = familiesOf(await scrape(`${op!.adminUrl}/metrics`));
    const documented = cataloguedFamilies('standalone');
    expect({ undocumented: missing(live, documented), notExported: missing(documented, live) }).toEqual({ undocumented: [], notExported: [] });
  });

  it('counts REST requests by route template and SMAPI calls of the host over the wire', async () => {
    expect((await fetch(`${op!.restUrl}/guests/NOSUCH1`)).status).toBe(404);
    expect((await fetch(`${op!.restUrl}/host`)).status).toBe(200); // a live read: SMAPI calls to the host
    const text = await scrape(`${op!.adminUrl}/metrics`);
    expect(text).toMatch(/^zvm_rest_requests_total\{route="\/guests\/:userid",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^zvm_rest_request_duration_seconds_count\{route="\/guests\/:userid",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^zvm_smapi_calls_total\{host="default",function="[A-Za-z_]+",outcome="success"\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^zvm_smapi_connections_in_use\{host="default"\} \d+$/m);
  });

  it('counts the bytes of an image import through the management guest', async () => {
    const files = join(dir, 'files');
    mkdirSync(files, { recursive: true });
    const bytes = Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(20_000, 3)]);
    writeFileSync(join(files, 'm.img'), bytes);
    const md5sum = createHash('md5').update(bytes).digest('hex');
    const res = await fetch(`${op!.restUrl}/images`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ image: { image_name: 'metricsimg', url: `file://${files}/m.img`, image_meta: { os_version: 'rhel8.6', md5sum } } }),
    });
    expect(res.status).toBe(200);
    expect(await scrape(`${op!.adminUrl}/metrics`)).toMatch(new RegExp(`^zvm_image_transfer_bytes_total\\{host="default",operation="import"\\} ${bytes.length}$`, 'm'));
  }, 60_000);
});
