/**
 * Mandatory SSH host-key verification of a ZHost's management guest, as cluster mode builds it
 * (kube-hosts with the embedded store standing in for the apiserver) against the simulator's SSH
 * endpoint on loopback, with the ZHost reconciler writing conditions and Events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZHost } from '../../../src/api/index.js';
import { createKubeHosts, type KubeHosts } from '../../../src/cmd/kube-hosts.js';
import { createZHostReconciler } from '../../../src/controllers/index.js';
import { NotFoundError } from '../../../src/errors.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../../src/hypervisor/sim/ssh/index.js';
import { generateEd25519KeyPair } from '../../../src/hypervisor/sim/ssh/ssh-keys.js';
import { silentLogger } from '../../../src/log.js';
import { createMemoryEventRecorder } from '../../../src/runtime/index.js';
import { createEmbeddedStore } from '../../../src/store/index.js';
import type { StateStore } from '../../../src/store/port.js';

const dir = mkdtempSync(join(tmpdir(), 'zvm-host-key-'));
const sim = createSimHost();
const secrets: Record<string, Record<string, string>> = { 'mgmt-pw': { password: 'SSHPW' } };
const readSecret = (name: string) => (secrets[name] ? Promise.resolve(secrets[name]!) : Promise.reject(new NotFoundError(name)));
const startSsh = (port = 0) => startSimSshServer({ sim, dataDir: dir, port, username: 'zvmmgmt', password: 'SSHPW', hostKey: generateEd25519KeyPair().private });
const sha256b64 = (hex: string) => `SHA256:${Buffer.from(hex, 'hex').toString('base64').replace(/=+$/, '')}`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what} not reached in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** kube-hosts, a ZHost reconciler and an Event recorder over one store; reconcile() runs it once. */
function aWorld(store: StateStore) {
  const hosts: KubeHosts = createKubeHosts({ store, log: silentLogger(), readSecret, retryMs: 50 });
  const events = createMemoryEventRecorder();
  const reconciler = createZHostReconciler({ store, hypervisors: hosts, events, log: silentLogger() });
  const stop = new AbortController();
  const run = hosts.informer.start(stop.signal);
  return {
    hosts,
    events,
    async reconciled(name: string) {
      await until(() => hosts.forHost(name), `host ${name} built`);
      await reconciler.reconcile({ name }, stop.signal);
      return (await store.get<ZHost>('ZHost', { name }))!;
    },
    async close() {
      stop.abort();
      await run;
      await hosts.close();
    },
  };
}

const aHost = (name: string, port: number, management: Partial<NonNullable<ZHost['spec']['management']>> = {}): ZHost => ({
  apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name },
  spec: { simulated: true, management: { host: '127.0.0.1', port, user: 'zvmmgmt', keySecret: 'mgmt-pw', ...management } },
});

const condition = (h: ZHost, type: string) => h.status?.conditions?.find((c) => c.type === type);

describe('ZHost management guest host key', () => {
  let ssh: SimSshServer;
  beforeAll(async () => { ssh = await startSsh(); });
  afterAll(async () => { await ssh.close(); });

  it('refuses a host whose key is configured nowhere, with a condition and a Warning Event', async () => {
    const store = createEmbeddedStore();
    const w = aWorld(store);
    try {
      await store.create(aHost('unknown', ssh.port));
      const h = await w.reconciled('unknown');
      expect(condition(h, 'HostKeyVerified')).toMatchObject({ status: 'False', reason: 'HostKeyNotConfigured' });
      expect(condition(h, 'HostKeyVerified')?.message).toContain(sha256b64(ssh.hostKeySha256));
      expect(condition(h, 'Ready')).toMatchObject({ status: 'False', reason: 'HostKeyNotConfigured' });
      expect(w.events.eventsFor(h).map((e) => [e.type, e.reason])).toContainEqual(['Warning', 'HostKeyNotConfigured']);
      await expect(w.hosts.forHost('unknown')!.mgmt!.vmcp('q userid')).rejects.toMatchObject({ reason: 'HostKeyNotConfigured' });
    } finally {
      await w.close();
    }
  });

  it('accepts a pinned key (hex or SHA256:base64) and refuses a wrong pin', async () => {
    const store = createEmbeddedStore();
    const w = aWorld(store);
    try {
      await store.create(aHost('pinned', ssh.port, { hostKeys: [sha256b64(ssh.hostKeySha256)] }));
      await store.create(aHost('pinned-hex', ssh.port, { hostKeys: [ssh.hostKeySha256] }));
      await store.create(aHost('wrong', ssh.port, { hostKeys: [`SHA256:${'A'.repeat(43)}`] }));
      expect(condition(await w.reconciled('pinned'), 'HostKeyVerified')).toMatchObject({ status: 'True', reason: 'Verified' });
      expect(condition(await w.reconciled('pinned-hex'), 'HostKeyVerified')).toMatchObject({ status: 'True' });
      expect((await w.hosts.forHost('pinned')!.mgmt!.vmcp('q userid')).exitCode).toBe(0);
      const wrong = await w.reconciled('wrong');
      expect(condition(wrong, 'HostKeyVerified')).toMatchObject({ status: 'False', reason: 'HostKeyMismatch' });
      expect(wrong.status?.phase).toBe('Unavailable');
    } finally {
      await w.close();
    }
  });

  it('trusts on first use, records the key in status, and refuses a changed key on the same address, also after a restart', async () => {
    const own = await startSsh();
    const port = own.port;
    const store = createEmbeddedStore();
    let w = aWorld(store);
    let impostor: SimSshServer | undefined;
    try {
      await store.create(aHost('tofu', port, { trustOnFirstUse: true }));
      const first = await w.reconciled('tofu');
      expect(first.status?.managementHostKey).toBe(sha256b64(own.hostKeySha256));
      expect(condition(first, 'HostKeyVerified')).toMatchObject({ status: 'True' });

      // another server with another key now answers on the same address
      await w.hosts.forHost('tofu')!.mgmt!.close();
      await own.close();
      impostor = await startSsh(port);
      expect(impostor.hostKeySha256).not.toBe(own.hostKeySha256);
      const changed = await w.reconciled('tofu');
      expect(condition(changed, 'HostKeyVerified')).toMatchObject({ status: 'False', reason: 'HostKeyChanged' });
      expect(changed.status?.managementHostKey).toBe(sha256b64(own.hostKeySha256));
      expect(w.events.eventsFor(changed).map((e) => e.reason)).toContain('HostKeyChanged');

      // a restarted operator reads the recorded key from status and refuses the impostor too
      await w.close();
      w = aWorld(store);
      const restarted = await w.reconciled('tofu');
      expect(condition(restarted, 'HostKeyVerified')).toMatchObject({ status: 'False', reason: 'HostKeyChanged' });
      expect(restarted.status?.managementHostKey).toBe(sha256b64(own.hostKeySha256));
    } finally {
      await w.close();
      await impostor?.close();
    }
  });
});
