/**
 * Cluster mode builds one Hypervisor per ZHost: SMAPI over TCP with credentials from a Secret, and
 * the management guest over SSH with a key Secret. Exercised with the embedded store standing in for
 * the apiserver (the registry only uses the StateStore port), a SMAPI wire server and the simulator's
 * SSH endpoint on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZHost } from '../../../src/api/index.js';
import { createKubeHosts, hostImageDirs } from '../../../src/cmd/kube-hosts.js';
import { InvalidSpecError, NotFoundError } from '../../../src/errors.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../../src/hypervisor/sim/ssh/index.js';
import { createSmapiServer, type SmapiServer } from '../../../src/hypervisor/smapi/index.js';
import { silentLogger } from '../../../src/log.js';
import { createEmbeddedStore } from '../../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'zvm-kube-hosts-'));
const sim = createSimHost();
let smapi: SmapiServer;
let ssh: SimSshServer;
const secrets: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  smapi = await createSmapiServer({ handler: sim, auth: { userid: 'ZVMOPER', password: 'SMAPIPW' }, port: 0 });
  ssh = await startSimSshServer({ sim, dataDir: dir, username: 'zvmmgmt', password: 'SSHPW', mgmtUserid: 'ZCCUID' });
  secrets['smapi-creds'] = { userid: 'ZVMOPER', password: 'SMAPIPW' };
  secrets['mgmt-key'] = { password: 'SSHPW', hostKeySha256: ssh.hostKeySha256 };
});

afterAll(async () => {
  await ssh.close();
  await smapi.close();
  rmSync(dir, { recursive: true, force: true });
});

function readSecret(name: string): Promise<Record<string, string>> {
  const s = secrets[name];
  return s ? Promise.resolve(s) : Promise.reject(new NotFoundError(`Secret ${name} not found`));
}

async function until<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('host never became ready');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('cluster-mode host registry', () => {
  it('connects SMAPI and the management guest of a ZHost with credentials from Secrets', async () => {
    const store = createEmbeddedStore();
    const hosts = createKubeHosts({ store, log: silentLogger(), readSecret, retryMs: 50 });
    const stop = new AbortController();
    const run = hosts.informer.start(stop.signal);
    const host: ZHost = {
      apiVersion: 'zvm.dev/v1beta1',
      kind: 'ZHost',
      metadata: { name: 'lpar1' },
      spec: {
        smapi: { host: '127.0.0.1', port: smapi.port, credentialsSecret: 'smapi-creds' },
        management: { host: '127.0.0.1', port: ssh.port, user: 'zvmmgmt', keySecret: 'mgmt-key' },
      },
    };
    await store.create(host);
    const hv = await until(() => hosts.forHost('lpar1'));
    expect((await hv.describeHost()).version).toBe(sim.config.version);
    const who = await hv.mgmt!.vmcp('q userid');
    expect(who.exitCode).toBe(0);
    expect(who.output).toMatch(/^ZCCUID AT /);
    stop.abort();
    await run;
    await hosts.close();
    await store.close();
  });

  it('keeps retrying a host whose management Secret is missing, and connects once it appears', async () => {
    const store = createEmbeddedStore();
    const hosts = createKubeHosts({ store, log: silentLogger(), readSecret, retryMs: 50 });
    const stop = new AbortController();
    const run = hosts.informer.start(stop.signal);
    await store.create({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'lpar2' },
      spec: { smapi: { host: '127.0.0.1', port: smapi.port, credentialsSecret: 'smapi-creds' }, management: { host: '127.0.0.1', port: ssh.port, user: 'zvmmgmt', keySecret: 'late-key' } },
    } satisfies ZHost);
    await new Promise((r) => setTimeout(r, 200));
    expect(hosts.forHost('lpar2')).toBeUndefined();
    secrets['late-key'] = { password: 'SSHPW', hostKeySha256: ssh.hostKeySha256 };
    const hv = await until(() => hosts.forHost('lpar2'));
    expect((await hv.mgmt!.vmcp('q userid')).exitCode).toBe(0);
    stop.abort();
    await run;
    await hosts.close();
    await store.close();
  });
});

describe('image directories of a ZHost', () => {
  it('may name the operator\'s --image-dir directories or ones inside them, never others', () => {
    expect(hostImageDirs('h', undefined, ['/srv/images'])).toEqual(['/srv/images']);
    expect(hostImageDirs('h', ['/srv/images/lpar1'], ['/srv/images'])).toEqual(['/srv/images/lpar1']);
    expect(() => hostImageDirs('h', ['/'], ['/srv/images'])).toThrow(/not inside the operator's --image-dir directories \(\/srv\/images\)/);
    expect(() => hostImageDirs('h', ['/srv/images/../etc'], ['/srv/images'])).toThrow(InvalidSpecError);
    expect(() => hostImageDirs('h', ['/srv/imagesX'], ['/srv/images'])).toThrow(InvalidSpecError);
  });
});
