/**
 * docs/architecture.md §4: bad input never yields a 5xx. Every route of the served OpenAPI document gets
 * hostile path parameters, query strings and bodies over real HTTP; each answer must be a JSON
 * envelope with a status below 500 (501 is allowed only where the route reports a feature it does
 * not offer, which is not a response to the input's shape). Bounded: a fixed set of cases per route.
 */
import type { Standalone } from '../../../src/cmd/standalone.js';
import { startTestStandalone, tempStateDir } from './helpers.js';

const hostileSegments = ['ABCDEFGHIJKLM', '..', '%2e%2e', 'a%00b', '-1', '0', '99999999', '🙂', 'x'.repeat(300)];
const hostileBodies: (string | undefined)[] = [
  undefined,
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '42',
  '{}',
  '{"guest":null}',
  '{"action":["start"]}',
  '{"action":"start","timeout":-5}',
  '{"disk_info":{"disk_list":[{"size":{"nested":true}}]}}',
  '{"vswitch":{"name":123,"rdev":"1 2 3 4"}}',
  '{"image":{"image_name":"../../etc","url":"file:///../../etc/passwd","image_meta":{"os_version":"rhel8"}}}',
  '{"info":{"connection":{"assigner_id":"X","zvm_fcp":["zz"],"target_wwpn":["nothex"],"target_lun":"0x1"}}}',
  JSON.stringify({ deep: JSON.parse('['.repeat(200) + ']'.repeat(200)) }),
  '{"n":1e400}',
];

describe('bad input never yields a 5xx', () => {
  const state = tempStateDir();
  let app: Standalone;
  let routes: { method: string; path: string }[] = [];

  beforeAll(async () => {
    app = await startTestStandalone(state.dir, { operationTimeout: '2s' });
    const doc = (await (await fetch(`${app.restUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  }, 60_000);

  afterAll(async () => {
    await app.stop();
    state.cleanup();
  });

  it('serves an OpenAPI document listing the guest, host, image, vswitch and volume routes', () => {
    const paths = new Set(routes.map((r) => r.path));
    for (const p of ['/guests', '/guests/{userid}/action', '/host', '/images', '/vswitches', '/volumes/fcptemplates']) expect(paths).toContain(p);
  });

  it('answers every hostile request with a JSON envelope below 500', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const segment of hostileSegments) {
        const path = route.path.replace(/\{[^}]+\}/g, encodeURIComponent(segment).replace(/%25/g, '%'));
        for (const body of route.method === 'GET' ? [undefined] : hostileBodies) {
          const res = await fetch(`${app.restUrl}${path}?userid=${encodeURIComponent(segment)}&poolname=${encodeURIComponent(segment)}`, {
            method: route.method,
            headers: body === undefined ? {} : { 'content-type': 'application/json' },
            body,
          });
          const text = await res.text();
          const isEnvelope = (() => {
            try {
              const parsed = JSON.parse(text) as Record<string, unknown>;
              return 'overallRC' in parsed || 'SMAPI' in parsed || (path.startsWith('/openapi') && 'paths' in parsed);
            } catch {
              return route.method === 'POST' && path === '/token' && text === '';
            }
          })();
          if ((res.status >= 500 && res.status !== 501) || !isEnvelope) {
            failures.push(`${route.method} ${path} body=${body?.slice(0, 40)} → ${res.status} ${text.slice(0, 120)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
