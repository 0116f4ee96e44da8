/**
 * The compiled CLI with kubectl's habits (issue 39): label selectors and -A, "No resources found",
 * a suggestion for a mistyped kind, the power verbs as `zvm-operator start|stop`, completion of
 * resource names from the running instance, and apply merging with what others wrote.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { runZvm, runZvmExit } from '../../builders/zvm.js';
import { standaloneForSuite, waitFor } from './helpers.js';

const guest = (name: string, labels: string, extra = '') => `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: ${name}
  labels: {${labels}}
spec:
  userid: ${name.toUpperCase()}
  vcpus: 1
  memory: 512M
${extra}`;

describe('zvm-operator with kubectl habits', () => {
  const s = standaloneForSuite();
  const cli = (...args: string[]) => runZvm([...args, '--server', s.app.adminUrl]);
  const cliExit = (...args: string[]) => runZvmExit([...args, '--server', s.app.adminUrl]);
  const file = (name: string, text: string) => {
    const path = join(s.dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('says "No resources found" on stderr for an empty table, and an empty List for -o json', async () => {
    const empty = await cli('get', 'zgpool');
    expect([empty.stdout, empty.stderr]).toEqual(['', 'No resources found.\n']);
    expect((await cli('get', 'zgpool', '-n', 'team-a')).stderr).toBe('No resources found in team-a namespace.\n');
    expect(JSON.parse((await cli('get', 'zgpool', '-o', 'json')).stdout)).toMatchObject({ kind: 'List', items: [] });
  });

  it('suggests the kind a typo was meant to be', async () => {
    const r = await cliExit('get', 'zguset');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the server doesn\'t have a resource type "zguset"; did you mean "zguest"?');
  });

  it('selects by label (-l) across every namespace (-A)', async () => {
    await cli('apply', '-f', file('web.yaml', `${guest('hab01', 'app: web')}---\n${guest('hab02', 'app: db')}`));
    const names = async (...args: string[]) => (await cli('get', 'zg', '-o', 'name', ...args)).stdout.trim().split('\n');
    expect(await names('-l', 'app=web')).toEqual(['zguest.zvm.dev/hab01']);
    expect(await names('-A', '-l', 'app!=web,app')).toEqual(['zguest.zvm.dev/hab02']);
    expect(await names('-l', 'app in (web,db)')).toEqual(['zguest.zvm.dev/hab01', 'zguest.zvm.dev/hab02']);
    expect((await cli('get', 'zg', '-l', 'app=none')).stderr).toBe('No resources found.\n');
  });

  it('runs the power verbs as zvm-operator start and stop (the plugin\'s implementation)', async () => {
    const stop = await cli('stop', 'hab01');
    expect(stop.stdout).toMatch(/zguest.zvm.dev\/hab01 (stop requested|stopped)/);
    const g = await s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'hab01' });
    expect(g?.spec.powerState).toBe('Stopped');
    const missing = await cliExit('start', 'nosuch');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('zguest "nosuch" not found in namespace default');
  }, 60_000);

  it('completes commands, kinds and the names of the running instance\'s resources; scripts for bash, zsh and fish', async () => {
    expect((await cli('__complete', 'sta')).stdout.split('\n').sort()).toEqual(['', 'standalone', 'start']);
    expect((await cli('__complete', 'get', 'zgu')).stdout.split('\n')).toEqual(expect.arrayContaining(['zguest', 'zguests']));
    expect((await cli('__complete', 'get', 'zg', 'hab')).stdout).toBe('hab01\nhab02\n');
    expect((await cli('__complete', 'stop', 'hab0')).stdout).toBe('hab01\nhab02\n');
    for (const shell of ['bash', 'zsh', 'fish']) expect((await runZvm(['completion', shell])).stdout).toContain('zvm-operator __complete');
  }, 60_000);

  it('apply merges: a field written since (spec.image, as deploy writes it) survives a re-apply; a dropped field goes', async () => {
    const path = file('merge.yaml', guest('hab03', 'app: web, tier: front'));
    await cli('apply', '-f', path);
    await s.app.store.patch('ZGuest', { namespace: 'default', name: 'hab03' }, { spec: { image: 'rhel9' } });
    expect((await cli('apply', '-f', path)).stdout).toBe('zguest.zvm.dev/hab03 unchanged\n');
    let g = await waitFor(() => s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'hab03' }));
    expect(g.spec.image).toBe('rhel9');
    await cli('apply', '-f', file('merge2.yaml', guest('hab03', 'app: web', '  vcpus: 2\n').replace('  vcpus: 1\n', '')));
    g = (await s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'hab03' }))!;
    expect([g.spec.vcpus, g.spec.image, g.metadata.labels]).toEqual([2, 'rhel9', { app: 'web' }]);
  }, 60_000);
});
