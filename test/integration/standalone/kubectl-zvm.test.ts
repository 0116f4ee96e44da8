/**
 * `kubectl zvm --server` against a real standalone instance: every verb through the compiled plugin,
 * checking the resource it wrote, the status the controller reported and the simulated host itself.
 */
import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API_VERSION, type ZGuest, type ZGuestAction, type ZImage } from '../../../src/api/index.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { runPlugin, spawnPlugin, until } from '../../kubectl-zvm/plugin.js';
import { standaloneForSuite } from './helpers.js';

const VERB_TIMEOUT_MS = 120_000;
jest.setTimeout(VERB_TIMEOUT_MS);

describe('kubectl zvm against a standalone instance (--server)', () => {
  const suite = standaloneForSuite();
  const server = () => ['--server', suite.app.adminUrl];
  const zvm = (...args: string[]) => runPlugin([...args, ...server()]);
  const guest = async (name: string) => (await suite.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name }))!;
  const hostPower = (userid: string) => suite.app.hosts.forHost('default')!.queryPowerState(userid);

  async function createGuest(name: string, powerState: 'Running' | 'Stopped'): Promise<void> {
    await suite.app.store.create<ZGuest>({
      apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default' },
      spec: { userid: name.toUpperCase(), vcpus: 1, memory: '1G', disks: [{ size: '1G', boot: true }], powerState },
    });
    await until(`${name} provisioned`, async () => (await guest(name))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
  }

  beforeAll(async () => {
    await createGuest('web01', 'Stopped');
    await createGuest('mig01', 'Running');
  });

  it('start, pause and unpause with --wait change spec.powerState and the host', async () => {
    const started = await zvm('start', 'web01', '--wait', '--timeout', '60s');
    expect(started).toMatchObject({ code: 0, stdout: 'zguest.zvm.dev/web01 started\n' });
    expect((await guest('web01')).spec.powerState).toBe('Running');
    expect(await hostPower('WEB01')).toBe('on');

    expect((await zvm('pause', 'web01', '--wait')).stdout).toBe('zguest.zvm.dev/web01 paused\n');
    expect(await hostPower('WEB01')).toBe('paused');
    expect((await zvm('unpause', 'web01', '--wait')).stdout).toBe('zguest.zvm.dev/web01 unpaused\n');
    expect(await hostPower('WEB01')).toBe('on');
  });

  it('restart and reboot write their one-shot tokens and return once status acknowledges them', async () => {
    const restarted = await zvm('restart', 'web01', '--wait');
    expect(restarted.stdout).toBe('zguest.zvm.dev/web01 restarted\n');
    const g = await guest('web01');
    expect(g.metadata.annotations?.['zvm.dev/reset-requested-at']).toBeDefined();
    expect(g.status?.lastHandledResetAt).toBe(g.metadata.annotations?.['zvm.dev/reset-requested-at']);

    expect((await zvm('reboot', 'web01', '--wait')).stdout).toBe('zguest.zvm.dev/web01 rebooted\n');
    const r = await guest('web01');
    expect(r.status?.lastHandledRebootAt).toBe(r.metadata.annotations?.['zvm.dev/reboot-requested-at']);
    expect(await hostPower('WEB01')).toBe('on');
  });

  it('console prints the console output; --follow prints new lines once, as they come', async () => {
    const shown = await zvm('console', 'web01');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^\d{8} LOGON WEB01 ON ZVMSIM /m);

    const follow = spawnPlugin(['console', 'web01', '--follow', '--interval', '200ms', ...server()]);
    try {
      await until('the console lines', () => follow.output().includes('LOGON WEB01'));
      const before = follow.output().length;
      expect((await zvm('pause', 'web01', '--wait')).code).toBe(0);
      await until('the pause line', () => follow.output().slice(before).includes('CP STOP (PAUSED)'));
      expect(follow.output().slice(before)).not.toContain('LOGON WEB01');
    } finally {
      follow.child.kill('SIGTERM');
    }
    expect((await zvm('unpause', 'web01', '--wait')).code).toBe(0);
  });

  it('stop without --wait returns once requested; the controller then logs the guest off', async () => {
    const res = await zvm('stop', 'web01');
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toMatch(/^zguest\.zvm\.dev\/web01 (stop requested|stopped)\n$/);
    expect((await guest('web01')).spec.powerState).toBe('Stopped');
    await until('WEB01 off on the host', async () => (await hostPower('WEB01')) === 'off');
  });

  it('softstop --wait of a running guest returns when it is off', async () => {
    expect((await zvm('start', 'web01', '--wait')).code).toBe(0);
    expect((await zvm('softstop', 'web01', '--wait', '--timeout', '60s')).stdout).toBe('zguest.zvm.dev/web01 stopped\n');
    expect(await hostPower('WEB01')).toBe('off');
  });

  it('errors are one line and a non-zero exit: unknown guest, unknown host, guest in the wrong state, bad flag', async () => {
    const unknown = await zvm('start', 'nosuch');
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'error: zguest "nosuch" not found in namespace default\n' });
    const host = await zvm('guests', 'nohost');
    expect(host).toMatchObject({ code: 1, stderr: 'error: zhost "nohost" not found\n' });
    const off = await zvm('pause', 'web01', '--wait');
    expect(off.code).toBe(1);
    expect(off.stderr.trim().split('\n')).toHaveLength(1);
    expect(off.stderr).toMatch(/^error: .*WEB01.*/i);
    expect((await guest('web01')).spec.powerState).toBe('Stopped');
    const level = await zvm('capture', 'web01', '--image', 'x', '--compress-level', '12');
    expect(level).toMatchObject({ code: 1, stderr: 'error: --compress-level 12 is not 0-9\n' });
  });

  it('migrate --test checks the move and leaves the guest; migrate moves it to the other SSI member', async () => {
    const tested = await zvm('migrate', 'mig01', '--to', 'zvmsim2', '--test', '--max-total', '60');
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^zguestaction\.zvm\.dev\/mig01-migrate-\S+: Succeeded: /m);
    expect(tested.stdout).toContain('zguest.zvm.dev/mig01 can move to ZVMSIM2');
    expect(await hostPower('MIG01')).toBe('on');

    const moved = await zvm('migrate', 'mig01', '--to', 'ZVMSIM2');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('Succeeded');
    expect(moved.stdout).toContain('zguest.zvm.dev/mig01 moved to ZVMSIM2');
    const actions = (await suite.app.store.list<ZGuestAction>('ZGuestAction', { namespace: 'default' })).items;
    expect(actions.map((a) => [a.spec.liveMigrate?.operation, a.spec.liveMigrate?.parms?.maxTotal, a.status?.phase])).toEqual(
      expect.arrayContaining([['test', 60, 'Succeeded'], ['move', undefined, 'Succeeded']]));
    expect((await guest('mig01')).metadata.annotations?.['zvm.dev/relocated-to']).toBe('ZVMSIM2');
    expect(await hostPower('MIG01')).toBe('off');
  });

  it('capture makes a Ready ZImage of the guest; deploy writes it onto the stopped guest', async () => {
    const captured = await zvm('capture', 'web01', '--image', 'web01-cap', '--compress-level', '1');
    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain('zimage.zvm.dev/web01-cap: Ready');
    const image = await suite.app.store.get<ZImage>('ZImage', { name: 'web01-cap' });
    expect(image?.spec.source.capture).toMatchObject({ guest: 'default/web01', compressLevel: 1 });
    expect(image?.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('kubectl-zvm');
    expect(image?.status?.phase).toBe('Ready');

    const deployed = await zvm('deploy', 'web01', '--image', 'web01-cap');
    expect(deployed).toMatchObject({ code: 0 });
    expect(deployed.stdout).toContain('zguest.zvm.dev/web01 deployed web01-cap');
    expect((await guest('web01')).status?.deployedImage?.toLowerCase()).toBe('web01-cap');

    const missing = await zvm('deploy', 'web01', '--image', 'nosuch');
    expect(missing).toMatchObject({ code: 1, stderr: 'error: zimage "nosuch" is not Ready (not found)\n' });
  });

  it('image-upload of a 200 MB file: plain progress lines, the md5 checked, a Ready ZImage with that md5', async () => {
    const file = join(suite.dir, 'upload.img');
    const md5 = await writeImageFile(file, 200 * 1024 * 1024);
    const res = await runPlugin(['image-upload', 'up200', '--file', file, '--os-version', 'rhel9.2', '--disk-type', 'DASD', '--timeout', '10m', ...server()], { timeoutMs: 600_000 });
    expect(res.stderr).not.toContain('error');
    expect(res.code).toBe(0);
    // not a terminal: one line per tenth of the file, each with bytes, total, share and rate
    const lines = res.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeLessThanOrEqual(12);
    for (const line of lines) expect(line).toMatch(/^upload: [\d.]+ (B|KiB|MiB) \/ 200\.0 MiB \(\d+%\) at [\d.]+ (B|KiB|MiB|GiB)\/s( ETA \d+(m\d\ds|s))?$/);
    expect(lines.at(-1)).toMatch(/^upload: 200\.0 MiB \/ 200\.0 MiB \(100%\)/);
    expect(res.stdout).toContain(`md5 ${md5}`);
    expect(res.stdout).toContain(`zimage.zvm.dev/up200 Ready (md5 ${md5})`);
    const image = await suite.app.store.get<ZImage>('ZImage', { name: 'up200' });
    expect(image?.status).toMatchObject({ phase: 'Ready', md5sum: md5, osVersion: 'rhel9.2', imageSizeInBytes: 200 * 1024 * 1024 });
    expect(image?.spec.source.import).toMatchObject({ url: expect.stringMatching(/^file:\/\/.*\/imported\//), md5sum: md5, diskType: 'DASD' });
  });

  it('guests HOST lists what the host reports beside the ZGuests, owner mark included', async () => {
    const res = await zvm('guests', 'default');
    expect(res.code).toBe(0);
    const [header, ...rows] = res.stdout.trim().split('\n');
    expect(header).toMatch(/^USERID\s+IN DIRECTORY\s+POWER\s+OWNER MARK\s+ZGUEST$/);
    expect(rows).toEqual(expect.arrayContaining([expect.stringMatching(/^WEB01\s+yes\s+off\s+ours\s+default\/web01$/)]));
  });

  it('plan -f against the instance: exit 2 with the SMAPI calls of a new guest, 0 for one as it is', async () => {
    const file = join(suite.dir, 'plan.yaml');
    const manifest = (name: string) => `apiVersion: ${API_VERSION}\nkind: ZGuest\nmetadata:\n  name: ${name}\nspec:\n  userid: ${name.toUpperCase()}\n  vcpus: 1\n  memory: 1G\n`;
    await writeFile(file, manifest('plan02'));
    const planned = await zvm('plan', '-f', file);
    expect(planned).toMatchObject({ code: 2, stderr: '' });
    expect(planned.stdout).toContain('ZGuest default/plan02: create (host default, userid PLAN02, not on the host)');
    expect(planned.stdout).toMatch(/SMAPI Image_Create_DM PLAN02/);
    expect(await suite.app.store.get('ZGuest', { namespace: 'default', name: 'plan02' })).toBeUndefined();
    await createGuest('plan03', 'Stopped');
    await writeFile(file, `apiVersion: ${API_VERSION}\nkind: ZGuest\nmetadata:\n  name: plan03\nspec: ${JSON.stringify((await guest('plan03')).spec)}\n`);
    expect(await zvm('plan', '-f', file, '-o', 'json')).toMatchObject({ code: 0, stdout: expect.stringContaining('"changes": false') });
  });

  it('--help of each verb and of the plugin', async () => {
    const help = await runPlugin(['--help']);
    expect(help.code).toBe(0);
    for (const verb of ['start', 'stop', 'softstop', 'pause', 'unpause', 'restart', 'reboot', 'console', 'migrate', 'capture', 'deploy', 'image-upload', 'guests']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${verb} `, 'm'));
    }
    const stop = await runPlugin(['stop', '--help']);
    expect(stop.stdout).toContain('--wait');
    const completion = await runPlugin(['st'], { name: 'kubectl_complete-zvm' });
    expect(completion.stdout).toBe('start\nstop\n:4\n');
  });
});

/** An image file the import accepts (a 512-byte header, raw data), written in chunks; its md5. */
async function writeImageFile(path: string, size: number): Promise<string> {
  const hash = createHash('md5');
  const out = createWriteStream(path);
  const write = (buf: Buffer) => new Promise<void>((resolve, reject) => {
    hash.update(buf);
    out.write(buf, (err) => (err ? reject(err) : resolve()));
  });
  const header = buildImageHeader({ diskType: 'CKD', diskSizeUnits: '300:CYL', compressLevel: 0 });
  await write(header);
  const chunk = Buffer.alloc(1024 * 1024);
  for (let done = header.length, i = 0; done < size; done += chunk.length, i += 1) {
    chunk.fill(i % 251);
    await write(done + chunk.length > size ? chunk.subarray(0, size - done) : chunk);
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return hash.digest('hex');
}
