/**
 * `zvm-operator plan --kubeconfig` and `kubectl zvm plan` (compiled, as users run them) against a real
 * apiserver: the manifests are compared with the cluster's resources and with the host, which the CLI
 * reads over SMAPI as the ZHost and its Secret say (`zvm-operator sim` on loopback), while the chart's
 * controller pod (as rendered, one replica) runs the same host. Exit codes 0/2/1, the calls in the plan, and that planning writes nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourcePlan } from '../../../src/cmd/plan-manifest.js';
import { runZvmExit } from '../../builders/zvm.js';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { runPlugin } from '../../kubectl-zvm/plugin.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'zvm-e2e-plan-'));
const suite = chartPodsForSuite({
  set: ['replicas=1,rest.enabled=false', 'controller.extraArgs={--poll-ms=200}'],
  cleanup: async () => rmSync(work, { recursive: true, force: true }),
});
const { env } = suite;

interface Run { code: number; stdout: string; stderr: string }

/** `zvm-operator plan` against the cluster; its exit code with its output. */
const zvmPlan = (...args: string[]): Promise<Run> =>
  runZvmExit(['plan', ...args, '--kubeconfig', env().kubeconfig, '-n', env().namespace, '--operator-namespace', env().namespace], { timeoutMs: 60_000 });

/** `kubectl zvm plan`, the plugin's global flags for the cluster. */
const pluginPlan = (...args: string[]): Promise<Run> =>
  runPlugin(['plan', ...args, '--kubeconfig', env().kubeconfig, '-n', env().namespace, '--operator-namespace', env().namespace]);

const guestYaml = (vcpus: number) => `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: plan01
spec:
  userid: PLAN01
  vcpus: ${vcpus}
  memory: 512M
`;

describe('plan against a cluster', () => {
  it('exits 2 with the SMAPI calls of a new guest, writes nothing, and exits 0 once the guest is there', async () => {
    const { kubeconfig, namespace } = env();
    const dir = join(work, 'manifests');
    mkdirSync(dir);
    const file = join(dir, 'guest.yaml');
    writeFileSync(file, guestYaml(1));

    const first = await zvmPlan('-f', dir);
    expect(first).toMatchObject({ code: 2, stderr: '' });
    expect(first.stdout).toContain(`ZGuest ${namespace}/plan01: create (host default, userid PLAN01, not on the host)`);
    expect(first.stdout).toMatch(/SMAPI Image_Create_DM PLAN01/);
    expect(first.stdout).toContain('CP XAUTOLOG PLAN01');
    const viaPlugin = await pluginPlan('-f', file, '-o', 'json');
    expect(viaPlugin.code).toBe(2);
    const json = JSON.parse(viaPlugin.stdout) as { changes: boolean; resources: ResourcePlan[] };
    expect(json.changes).toBe(true);
    expect(json.resources[0].guest?.steps.flatMap((s) => s.calls).map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual(
      (JSON.parse((await zvmPlan('-f', file, '-o', 'json')).stdout) as { resources: ResourcePlan[] }).resources[0].guest?.steps.flatMap((s) => s.calls).map((c) => (c.kind === 'smapi' ? c.function : c.op)),
    );
    expect((await kubectl(['get', '-n', namespace, 'zg/plan01'], { kubeconfig })).code).not.toBe(0);
    expect(await suite.host().hypervisor.describeGuest('PLAN01')).toBeUndefined();

    await kubectlOk(['apply', '-n', namespace, '-f', file], { kubeconfig });
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', 'zg/plan01', '--timeout=90s'], { kubeconfig, timeoutMs: 100_000 });
    const settled = await zvmPlan('-f', file);
    expect(settled).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes') });
    expect(settled.stdout).toContain(`ZGuest ${namespace}/plan01: unchanged (host default, userid PLAN01, on the host, on), no changes`);
    expect(await pluginPlan('-f', file)).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes') });
  }, 240_000);

  it('plans a resize of the live guest as the directory and CP changes, and leaves the guest as it was', async () => {
    const file = join(work, 'resize.yaml');
    writeFileSync(file, guestYaml(2));
    const out = await pluginPlan('-f', file);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(`ZGuest ${env().namespace}/plan01: update`);
    expect(out.stdout).toMatch(/SMAPI Image_Definition_Update_DM PLAN01/);
    expect(out.stdout).toContain('+ COMMAND DEFINE CPU 01 TYPE IFL');
    expect(out.stdout).toContain('CP SEND CP PLAN01 DEFINE CPU 01 TYPE IFL');
    expect((await suite.host().hypervisor.describeGuest('PLAN01'))?.directory.cpus).toBe(1);
  }, 120_000);

  it('plans a ZVswitch on the cluster down to its SMAPI calls', async () => {
    const file = join(work, 'vswitch.yaml');
    writeFileSync(file, 'apiVersion: zvm.dev/v1beta1\nkind: ZVswitch\nmetadata:\n  name: plansw\nspec:\n  switchName: PLANSW\n  authorizedUsers:\n    - userid: PLAN01\n');
    const out = await zvmPlan('-f', file);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('ZVswitch plansw: create (host default)');
    expect(out.stdout).toMatch(/SMAPI Virtual_Network_Vswitch_Create_Extended MAINT switch_name=PLANSW/);
    expect(out.stdout).toContain('CP SET VSWITCH PLANSW GRANT PLAN01');
    expect(await suite.host().hypervisor.vswitches?.describe('PLANSW')).toBeUndefined();
  }, 120_000);

  it('exits 1 naming the reason when the host cannot be read from outside the controller', async () => {
    await applyObjects(env(), [{ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'inproc' }, spec: { simulated: true } }]);
    const file = join(work, 'inproc.yaml');
    writeFileSync(file, guestYaml(1).replace('name: plan01', 'name: inproc01').replace('userid: PLAN01', 'host: inproc\n  userid: INPROC01'));
    const out = await zvmPlan('-f', file);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('host inproc is simulated inside the controller process');
  }, 120_000);
});
