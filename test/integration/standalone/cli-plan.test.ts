/**
 * `zvm-operator plan` (compiled, as users run it) against a running standalone instance: the exit code
 * says whether anything would change (0 no, 2 yes, 1 error), the text and json name the SMAPI calls, and
 * planning writes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import type { ResourcePlan } from '../../../src/cmd/plan-manifest.js';
import { runZvm, runZvmExit } from '../../builders/zvm.js';
import { standaloneForSuite, waitFor } from './helpers.js';

const CLI_TEST_TIMEOUT_MS = 120_000;

const plan = (args: string[]) => runZvmExit(['plan', ...args]);

const guest = (vcpus: number) => `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: plan01
spec:
  userid: PLAN01
  vcpus: ${vcpus}
  memory: 2G
  disks:
    - size: 1G
`;

describe('zvm-operator plan against standalone', () => {
  const s = standaloneForSuite();
  const server = () => ['--server', s.app.adminUrl];

  it('exits 2 with the calls a new guest needs, writes nothing, and exits 0 once applied', async () => {
    const dir = join(s.dir, 'manifests');
    mkdirSync(dir);
    writeFileSync(join(dir, 'guest.yaml'), guest(2));
    const first = await plan(['-f', dir, ...server()]);
    expect(first).toMatchObject({ code: 2, stderr: '' });
    expect(first.stdout).toContain('ZGuest default/plan01: create (host default, userid PLAN01, not on the host)');
    expect(first.stdout).toMatch(/SMAPI Image_Create_DM PLAN01/);
    expect(first.stdout).toMatch(/\+ USER PLAN01 \(redacted\) 2G/);
    expect(first.stdout).toContain('CP XAUTOLOG PLAN01');
    expect(first.stdout).toContain('Plan: 1 of 1 resource(s) would change.');
    expect(await s.app.store.get('ZGuest', { namespace: 'default', name: 'plan01' })).toBeUndefined();
    expect(await s.app.hosts.forHost('default')?.describeGuest('PLAN01')).toBeUndefined();

    await runZvm(['apply', '-f', join(dir, 'guest.yaml'), ...server()]);
    await waitFor(async () => {
      const g = await s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'plan01' });
      return g?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True') ? g : undefined;
    });
    const settled = await plan(['-f', join(dir, 'guest.yaml'), ...server()]);
    expect(settled).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes') });
    expect(settled.stdout).toContain('ZGuest default/plan01: unchanged (host default, userid PLAN01, on the host, on), no changes');
  }, CLI_TEST_TIMEOUT_MS);

  it('prints a resize as json with its SMAPI calls and leaves the guest as it was', async () => {
    const file = join(s.dir, 'resize.yaml');
    writeFileSync(file, guest(4));
    const out = await plan(['-f', file, '-o', 'json', ...server()]);
    expect(out.code).toBe(2);
    const json = JSON.parse(out.stdout) as { changes: boolean; resources: ResourcePlan[] };
    expect(json.changes).toBe(true);
    const [p] = json.resources;
    expect(p).toMatchObject({ kind: 'ZGuest', name: 'plan01', action: 'update', changes: true });
    expect(p.guest?.steps.map((x) => x.step.op)).toEqual(['setDirectoryCpus', 'defineActiveCpus']);
    const calls = p.guest?.steps.flatMap((x) => x.calls) ?? [];
    expect(calls.map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual(['Image_Definition_Update_DM', 'Image_CPU_Define', 'Image_CPU_Define']);
    expect(calls[0].directory).toEqual({ added: ['COMMAND DEFINE CPU 02 TYPE IFL', 'COMMAND DEFINE CPU 03 TYPE IFL', 'SHARE RELATIVE 400'], removed: ['SHARE RELATIVE 200'] });
    expect(calls[1].cp).toBe('SEND CP PLAN01 DEFINE CPU 02 TYPE IFL');
    expect((await s.app.hosts.forHost('default')?.describeGuest('PLAN01'))?.directory.cpus).toBe(2);
    expect((await s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'plan01' }))?.spec.vcpus).toBe(2);
  }, CLI_TEST_TIMEOUT_MS);

  it('plans a ZVswitch down to its SMAPI calls and CP commands', async () => {
    const file = join(s.dir, 'vswitch.yaml');
    writeFileSync(file, `apiVersion: zvm.dev/v1beta1
kind: ZVswitch
metadata:
  name: plansw
spec:
  switchName: PLANSW
  authorizedUsers:
    - userid: PLAN01
`);
    const out = await plan(['-f', file, ...server()]);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('ZVswitch plansw: create (host default)');
    expect(out.stdout).toMatch(/SMAPI Virtual_Network_Vswitch_Create_Extended MAINT switch_name=PLANSW/);
    expect(out.stdout).toContain('CP SET VSWITCH PLANSW GRANT PLAN01');
    expect(await s.app.store.get('ZVswitch', { name: 'plansw' })).toBeUndefined();
  }, CLI_TEST_TIMEOUT_MS);

  it('exits 1 on an invalid manifest, before asking the server anything', async () => {
    const file = join(s.dir, 'bad.yaml');
    writeFileSync(file, guest(2).replace('vcpus: 2', 'vcpus: many'));
    const out = await plan(['-f', file, ...server()]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('/spec/vcpus');
  }, CLI_TEST_TIMEOUT_MS);
});
