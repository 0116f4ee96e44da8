/**
 * `kubectl zvm` against the real apiserver of the e2e tier: the compiled plugin with --kubeconfig and
 * -n, a controller and a REST sidecar as processes, and `zvm-operator sim` (SMAPI + the management
 * guest over SSH) as the host. Checks the resources the verbs wrote (field manager included), the
 * status the controller reported, and the host through its own SMAPI client.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSmapiClient } from '../../../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { runPlugin } from '../../kubectl-zvm/plugin.js';
import {
  applyObjects, eventually, freePorts, jsonpath, logNumber, spawnCli, startOperatorEnv, stopProcess, waitUntil, type LoggedProcess, type OperatorEnv,
} from './helpers.js';
import { aZGuest } from './shared-host.js';

let o: OperatorEnv | undefined;
const procs: LoggedProcess[] = [];
let hv: Hypervisor | undefined;
let restUrl = '';
const work = mkdtempSync(join(tmpdir(), 'zvm-e2e-plugin-'));
const filesDir = join(work, 'files');

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}
const host = (): Hypervisor => hv ?? (() => { throw new Error('no host'); })();
const zvm = (...args: string[]) => runPlugin([...args, '--kubeconfig', env().kubeconfig, '-n', env().namespace, '--operator-namespace', env().namespace]);

/** The sim's SSH host key fingerprint, from its start-up line. */
async function logString(proc: LoggedProcess, field: string): Promise<string> {
  let found = '';
  await waitUntil(async () => {
    found = new RegExp(`"${field}":"([^"]+)"`).exec(readFileSync(proc.logPath, 'utf8'))?.[1] ?? '';
    return found !== '';
  }, { what: `${field} in the ${proc.name} log`, timeoutMs: 30_000, watch: [proc], intervalMs: 100 });
  return found;
}

beforeAll(async () => {
  o = await startOperatorEnv();
  const smapiPassword = randomBytes(8).toString('hex');
  const sshPassword = randomBytes(8).toString('hex');
  const sim = spawnCli(o, 'sim', ['sim', '--port', '0', '--password', smapiPassword, '--ssh-port', '0', '--ssh-dir', join(work, 'mgmt'), '--ssh-password', sshPassword]);
  procs.push(sim);
  const smapiPort = await logNumber(sim, 'smapiPort');
  const sshPort = await logNumber(sim, 'sshPort');
  const hostKeySha256 = await logString(sim, 'hostKeySha256');
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password: smapiPassword } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-ssh' }, stringData: { password: sshPassword, hostKeySha256 } },
    {
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' },
      spec: { smapi: { host: '127.0.0.1', port: smapiPort, credentialsSecret: 'sim-smapi' }, management: { host: '127.0.0.1', port: sshPort, user: 'zcc', keySecret: 'sim-ssh' } },
    },
  ]);
  const [probePort, restPort] = await freePorts(2);
  restUrl = `http://127.0.0.1:${restPort}`;
  procs.push(spawnCli(o, 'controller', [
    'controller', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace, '--image-dir', filesDir, '--poll-ms', '200',
    '--health-probe-bind-address', `127.0.0.1:${probePort}`, '--metrics-bind-address', '0',
  ]));
  procs.push(spawnCli(o, 'rest', ['rest', '--kubeconfig', o.kubeconfig, '--namespace', o.namespace, '--auth', 'none', '--port', String(restPort), '--bind', '127.0.0.1', '--image-dir', filesDir]));
  hv = createSmapiHypervisor({ hostName: 'default', caller: createSmapiClient({ host: '127.0.0.1', port: smapiPort, auth: { userid: 'MAINT', password: smapiPassword }, timeoutMs: 10_000, retries: 0 }) });
  await eventually('the controller to be ready', async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok ?? false, procs);
  await eventually('the REST sidecar to answer', async () => (await fetch(`${restUrl}/`).catch(() => undefined)) !== undefined, procs);

  // web01 as REST would create it (its field manager may be taken over); gitops01 as kubectl applies it
  const web = JSON.stringify(aZGuest('web01', 'WEB01', 'Stopped'));
  await kubectlOk(['create', '-n', o.namespace, '--field-manager=zvm-rest', '-f', '-'], { kubeconfig: o.kubeconfig, input: web });
  await applyObjects(o, [aZGuest('gitops01', 'GITOPS01', 'Stopped')]);
  for (const name of ['web01', 'gitops01']) {
    await kubectlOk(['wait', '-n', o.namespace, '--for=condition=Ready', `zg/${name}`, '--timeout=90s'], { kubeconfig: o.kubeconfig, timeoutMs: 100_000 });
  }
}, 300_000);

afterAll(async () => {
  await hv?.close();
  for (const p of procs.reverse()) await stopProcess(p);
  await o?.env.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('kubectl zvm against a real apiserver', () => {
  it('start --wait writes spec.powerState under the kubectl-zvm field manager; the host logs the guest on', async () => {
    const res = await zvm('start', 'web01', '--wait', '--timeout', '90s');
    expect(res).toMatchObject({ stderr: '', stdout: 'zguest.zvm.dev/web01 started\n' });
    expect(await jsonpath(env(), 'zg/web01', '{.status.powerState}')).toBe('on');
    expect(await host().queryPowerState('WEB01')).toBe('on');
    const managers = await kubectlOk(['get', '-n', env().namespace, 'zg/web01', '--show-managed-fields', '-o', 'json'], { kubeconfig: env().kubeconfig });
    const entries = (JSON.parse(managers) as { metadata: { managedFields: { manager: string; fieldsV1?: { 'f:spec'?: Record<string, unknown> } }[] } }).metadata.managedFields;
    expect(entries.find((e) => e.manager === 'kubectl-zvm')?.fieldsV1?.['f:spec']).toHaveProperty(['f:powerState']);
  }, 150_000);

  // z/VM cannot tell paused from running (hypervisor/zvm/hypervisor.ts): the guest's console says it
  it('pause and unpause read the host through the ZHost and its Secret; console shows the guest stop and resume', async () => {
    const res = await zvm('pause', 'web01', '--wait', '--timeout', '90s');
    expect(res).toMatchObject({ stderr: '', stdout: 'zguest.zvm.dev/web01 paused\n' });
    expect(await jsonpath(env(), 'zg/web01', '{.status.powerState}')).toBe('paused');
    expect((await zvm('unpause', 'web01', '--wait', '--timeout', '90s')).code).toBe(0);
    const consoleText = await zvm('console', 'web01');
    expect(consoleText.code).toBe(0);
    expect(consoleText.stdout).toMatch(/LOGON WEB01[\s\S]*CP STOP \(PAUSED\)[\s\S]*CP BEGIN \(RESUMED\)/);
    expect(await host().queryPowerState('WEB01')).toBe('on');
  }, 150_000);

  it('guests HOST shows what the host reports beside the ZGuests', async () => {
    const res = await zvm('guests', 'default');
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')).toEqual(expect.arrayContaining([expect.stringMatching(/^WEB01\s+yes\s+on\s+ours\s+zvm-system\/web01$/)]));
  }, 60_000);

  it('migrate --test creates a ZGuestAction and reports its success; the guest stays', async () => {
    const res = await zvm('migrate', 'web01', '--to', 'ZVMSIM2', '--test', '--max-total', '60', '--timeout', '90s');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('zguest.zvm.dev/web01 can move to ZVMSIM2');
    const phases = await kubectlOk(['get', 'zguestactions', '-n', env().namespace, '-o', 'jsonpath={.items[*].status.phase}'], { kubeconfig: env().kubeconfig });
    expect(phases).toBe('Succeeded');
    expect(await host().queryPowerState('WEB01')).toBe('on');
  }, 150_000);

  it('stop --wait logs the guest off', async () => {
    expect(await zvm('stop', 'web01', '--wait', '--timeout', '90s')).toMatchObject({ stderr: '', stdout: 'zguest.zvm.dev/web01 stopped\n' });
    expect(await jsonpath(env(), 'zg/web01', '{.spec.powerState}')).toBe('Stopped');
    expect(await host().queryPowerState('WEB01')).toBe('off');
  }, 150_000);

  it('refuses a field kubectl apply manages, naming the owner, and changes nothing; --take-over goes on', async () => {
    const refused = await zvm('start', 'gitops01', '--wait');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('error: conflict: spec.powerState (managed by "kubectl-client-side-apply"); change it where it is managed, or pass --take-over\n');
    expect(await jsonpath(env(), 'zg/gitops01', '{.spec.powerState}')).toBe('Stopped');
    expect(await host().queryPowerState('GITOPS01')).toBe('off');

    const taken = await runPlugin(['start', 'gitops01', '--wait', '--timeout', '90s', '--take-over', '--kubeconfig', env().kubeconfig, '-n', env().namespace]);
    expect(taken).toMatchObject({ code: 0, stdout: 'zguest.zvm.dev/gitops01 started\n' });
    expect(await host().queryPowerState('GITOPS01')).toBe('on');
  }, 150_000);

  it('image-upload goes through the REST sidecar\'s /files and ends with a Ready ZImage of the same md5', async () => {
    const file = join(work, 'small.img');
    const data = Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), randomBytes(8 * 1024 * 1024)]);
    writeFileSync(file, data);
    const md5 = createHash('md5').update(data).digest('hex');
    const res = await zvm('image-upload', 'img01', '--file', file, '--os-version', 'rhel9.2', '--upload-url', restUrl, '--timeout', '120s');
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/^upload: 8\.0 MiB \/ 8\.0 MiB \(100%\)/m);
    expect(res.stdout).toContain(`zimage.zvm.dev/img01 Ready (md5 ${md5})`);
    const status = await kubectlOk(['get', 'zimage', 'img01', '-o', 'jsonpath={.status.phase} {.status.md5sum}'], { kubeconfig: env().kubeconfig });
    expect(status).toBe(`Ready ${md5}`);
  }, 200_000);

  it('migrate moves a running guest to the other SSI member: it leaves this host', async () => {
    const res = await zvm('migrate', 'gitops01', '--to', 'ZVMSIM2', '--timeout', '90s');
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('zguest.zvm.dev/gitops01 moved to ZVMSIM2');
    expect(await jsonpath(env(), 'zg/gitops01', '{.metadata.annotations.zvm\\.dev/relocated-to}')).toBe('ZVMSIM2');
    expect(await host().queryPowerState('GITOPS01')).toBe('off');
  }, 150_000);

  it('--context picks the kubeconfig context; an unknown one, or one RBAC forbids, is one line and exit 1', async () => {
    const base = ['stop', 'web01', '--wait', '--timeout', '60s', '--kubeconfig', env().env.kubeconfigPath, '-n', env().namespace];
    expect(await runPlugin([...base, '--context', 'admin'])).toMatchObject({ code: 0, stdout: 'zguest.zvm.dev/web01 stopped\n' });
    expect(await runPlugin([...base, '--context', 'nosuch'])).toMatchObject({ code: 1, stderr: 'error: context "nosuch" does not exist in the kubeconfig\n' });
    const forbidden = await runPlugin([...base, '--context', 'operator']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr.trim().split('\n')).toHaveLength(1);
    expect(forbidden.stderr).toMatch(/^error: .*forbidden/i);
  }, 60_000);

  it('without --upload-url a cluster upload says what is missing', async () => {
    const res = await zvm('image-upload', 'img02', '--file', join(work, 'small.img'), '--os-version', 'rhel9.2');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: against a cluster, image-upload needs --upload-url/);
    expect((await kubectl(['get', 'zimage', 'img02'], { kubeconfig: env().kubeconfig })).code).not.toBe(0);
  }, 60_000);
});
