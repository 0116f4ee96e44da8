import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { runZvm } from '../../builders/zvm.js';
import { http, startTestStandalone, tempStateDir, waitFor } from './helpers.js';

// each CLI run starts a Node process (well under a second, more on a loaded 2-core machine); the first test runs three
const CLI_TEST_TIMEOUT_MS = 120_000;

/** The CLI exactly as a user runs it: `zvm-operator apply|get`, compiled. */
const cli = (args: string[]) => runZvm(args);

const manifest = `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: yaml01
spec:
  userid: YAML01
  vcpus: 2
  memory: 2G
  disks:
    - size: 1G
      boot: true
    - size: 512M
      format: ext4
  powerState: On
`;

describe('standalone mode: manifests through the CLI, and a restart that loses nothing', () => {
  const state = tempStateDir();
  afterAll(() => state.cleanup());

  it('applies a YAML manifest, brings the guest up, and keeps it across a restart', async () => {
    let app = await startTestStandalone(state.dir);
    try {
      const file = join(state.dir, 'guest.yaml');
      writeFileSync(file, manifest);
      const applied = await cli(['apply', '-f', file, '--server', app.adminUrl]);
      expect(applied.stdout).toContain('zguest.zvm.dev/yaml01 created');

      const ready = await waitFor(async () => {
        const g = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'yaml01' });
        return g?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True') ? g : undefined;
      });
      expect(ready.status?.powerState).toBe('on');
      expect(ready.status?.disks?.map((d) => d.vdev)).toEqual(['0100', '0101']);

      const listed = await cli(['get', 'zg', '--server', app.adminUrl]);
      expect(listed.stdout).toMatch(/yaml01\s+YAML01\s+default\s+on\s+2\s+2G/);

      const again = await cli(['apply', '-f', file, '--server', app.adminUrl]);
      expect(again.stdout).toContain('zguest.zvm.dev/yaml01 unchanged');
    } finally {
      await app.stop();
    }

    app = await startTestStandalone(state.dir);
    try {
      const g = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'yaml01' });
      expect(g?.status?.powerState).toBe('on');
      const onHost = await app.hosts.forHost('default')!.describeGuest('YAML01');
      expect(onHost?.power).toBe('on');
      expect(onHost?.directory.disks).toHaveLength(2);
      expect((await http(app.restUrl, 'GET', '/guests')).body.output).toContain('YAML01');
    } finally {
      await app.stop();
    }
  }, CLI_TEST_TIMEOUT_MS);

  it('refuses an invalid manifest with the schema path and changes nothing', async () => {
    const app = await startTestStandalone(state.dir);
    try {
      const file = join(state.dir, 'bad.yaml');
      writeFileSync(file, manifest.replace('name: yaml01', 'name: bad01').replace('vcpus: 2', 'vcpus: 65') + '---\n' + manifest.replace('yaml01', 'good01'));
      await expect(cli(['apply', '-f', file, '--server', app.adminUrl])).rejects.toMatchObject({ stderr: expect.stringContaining('/spec/vcpus') });
      expect(await app.store.get('ZGuest', { namespace: 'default', name: 'bad01' })).toBeUndefined();
      expect(await app.store.get('ZGuest', { namespace: 'default', name: 'good01' })).toBeUndefined();
    } finally {
      await app.stop();
    }
  }, CLI_TEST_TIMEOUT_MS);
});
