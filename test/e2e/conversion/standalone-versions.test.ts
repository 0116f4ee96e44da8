/**
 * Standalone's admin API serves the versions as the apiserver does (issue 37), over HTTP: a request that
 * names v1alpha1 (in its body, or as `zguests.v1alpha1.zvm.dev` in its path) gets the CRD's deprecation
 * warning as a `Warning: 299 - "…"` header and its objects at that version; the store keeps v1beta1; the
 * compiled CLI prints the warning on stderr as kubectl does, once per command.
 */
import { writeFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { deprecationWarning, type Resource } from '../../../src/api/index.js';
import { runZvm, runZvmExit } from '../../builders/zvm.js';
import { standaloneForSuite } from '../../integration/standalone/helpers.js';

const WARNING = `299 - "${deprecationWarning('ZGuest')}"`;
const guest = (apiVersion: string, name: string) => ({
  apiVersion, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid: name.toUpperCase(), vcpus: 1, memory: '512M', powerState: 'Stopped' },
});

describe('standalone serves zvm.dev at v1beta1 and, deprecated, v1alpha1', () => {
  const s = standaloneForSuite();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.app.adminUrl}${path}`, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
    return { status: res.status, warning: res.headers.get('warning'), body: (await res.json()) as unknown };
  };
  const stored = async (name: string) => (await s.app.store.get('ZGuest', { namespace: 'default', name }))?.apiVersion;

  it('answers a v1alpha1 body with the warning and the object at v1alpha1, and stores it at v1beta1', async () => {
    const applied = await call('POST', '/apply', guest('zvm.dev/v1alpha1', 'solo01'));
    expect([applied.status, applied.warning]).toEqual([200, WARNING]);
    expect((applied.body as { object: Resource }).object.apiVersion).toBe('zvm.dev/v1alpha1');
    const created = await call('POST', '/resources/zguests', guest('zvm.dev/v1alpha1', 'solo02'));
    expect([created.status, created.warning, (created.body as Resource).apiVersion]).toEqual([201, WARNING, 'zvm.dev/v1alpha1']);
    expect([await stored('solo01'), await stored('solo02')]).toEqual(['zvm.dev/v1beta1', 'zvm.dev/v1beta1']);
    const beta = await call('POST', '/apply', guest('zvm.dev/v1beta1', 'solo03'));
    expect([beta.status, beta.warning, (beta.body as { object: Resource }).object.apiVersion]).toEqual([200, null, 'zvm.dev/v1beta1']);
  });

  it('serves the same objects at zguests.v1alpha1.zvm.dev (with the warning), zguests.v1beta1.zvm.dev and zguests', async () => {
    const alpha = await call('GET', '/resources/zguests.v1alpha1.zvm.dev');
    const beta = await call('GET', '/resources/zguests.v1beta1.zvm.dev');
    const plain = await call('GET', '/resources/zguests');
    expect([alpha.warning, beta.warning, plain.warning]).toEqual([WARNING, null, null]);
    const items = (r: { body: unknown }) => r.body as Resource[];
    const same = (r: { body: unknown }) => items(r).map((o) => [o.metadata.name, o.metadata.uid, o.spec]);
    expect(same(alpha)).toEqual(same(beta));
    expect(same(plain)).toEqual(same(beta));
    expect(items(alpha).map((o) => o.apiVersion)).toEqual(['zvm.dev/v1alpha1', 'zvm.dev/v1alpha1', 'zvm.dev/v1alpha1']);
    expect(items(beta).map((o) => o.apiVersion)).toEqual(['zvm.dev/v1beta1', 'zvm.dev/v1beta1', 'zvm.dev/v1beta1']);
    const one = await call('GET', '/resources/zguests.v1alpha1.zvm.dev/solo03?namespace=default');
    expect([one.warning, (one.body as Resource).apiVersion]).toEqual([WARNING, 'zvm.dev/v1alpha1']);
    expect((await call('GET', '/resources/zguests.v2.zvm.dev')).status).toBe(404);
  });

  it('a watch at v1alpha1 carries the warning and its events at v1alpha1', async () => {
    // node:http, so that the socket surely closes at the end (the server's close waits for a watch still open)
    const res = await new Promise<IncomingMessage>((resolve, reject) => get(`${s.app.adminUrl}/watch/zguests.v1alpha1.zvm.dev?namespace=default`, resolve).once('error', reject));
    try {
      expect(res.headers.warning).toBe(WARNING);
      // a write through v1beta1 after the watch started: the watch still shows it at v1alpha1
      await call('POST', '/apply', guest('zvm.dev/v1beta1', 'solo06'));
      const events: Resource[] = [];
      let text = '';
      for await (const chunk of res.setEncoding('utf8') as AsyncIterable<string>) {
        const lines = (text += chunk).split('\n');
        text = lines.pop()!;
        events.push(...lines.map((l) => (JSON.parse(l) as { object: Resource }).object));
        if (events.some((o) => o.metadata.name === 'solo06')) break;
      }
      expect(events.map((o) => o.metadata.name)).toContain('solo06');
      expect(new Set(events.map((o) => o.apiVersion))).toEqual(new Set(['zvm.dev/v1alpha1']));
    } finally {
      res.destroy();
    }
  });

  it('the CLI prints the warning on stderr once per command, and none for v1beta1', async () => {
    const server = ['--server', s.app.adminUrl];
    const file = join(s.dir, 'alpha.yaml');
    writeFileSync(file, [guest('zvm.dev/v1alpha1', 'solo04'), guest('zvm.dev/v1alpha1', 'solo05')].map((g) => stringify(g)).join('---\n'));
    const applied = await runZvm(['apply', '-f', file, ...server]);
    expect(applied.stderr).toBe(`Warning: ${deprecationWarning('ZGuest')}\n`);
    expect(applied.stdout).toBe('zguest.zvm.dev/solo04 created\nzguest.zvm.dev/solo05 created\n');
    const alpha = await runZvm(['get', 'zguests.v1alpha1.zvm.dev', 'solo04', '-o', 'json', ...server]);
    expect([alpha.stderr, (JSON.parse(alpha.stdout) as Resource).apiVersion]).toEqual([`Warning: ${deprecationWarning('ZGuest')}\n`, 'zvm.dev/v1alpha1']);
    const beta = await runZvm(['get', 'zguests.v1beta1.zvm.dev', 'solo04', '-o', 'json', ...server]);
    expect([beta.stderr, (JSON.parse(beta.stdout) as Resource).apiVersion]).toEqual(['', 'zvm.dev/v1beta1']);
    expect((await runZvm(['get', 'zg', ...server])).stderr).toBe('');
    const unknown = await runZvmExit(['get', 'zguests.v2.zvm.dev', ...server]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('the server doesn\'t have a resource type "zguests.v2.zvm.dev"')]);
  }, 60_000);
});
