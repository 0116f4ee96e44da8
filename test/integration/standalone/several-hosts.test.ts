import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { API_VERSION, type ZGuest, type ZHost } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { createSimHost } from '../../../src/hypervisor/sim/index.js';
import { createSmapiClient, createSmapiServer, type SmapiServer } from '../../../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { startTestStandalone, tempStateDir } from './helpers.js';

/**
 * Standalone mode holding several hosts (issue 15): the built-in `default`, a second simulated host
 * in the process, and a SMAPI server on loopback (as a `zvm-operator sim` process would serve it) whose
 * credentials come from a Secret directory. Guests land on the host their spec names, and only there.
 */
describe('standalone mode with several hosts', () => {
  const state = tempStateDir();
  let app: Standalone;
  let server: SmapiServer;
  let remote: Hypervisor;

  beforeAll(async () => {
    server = await createSmapiServer({ handler: createSimHost(), auth: { userid: 'MAINT', password: 'remote-pw' }, host: '127.0.0.1', port: 0 });
    const secret = join(state.dir, 'secrets', 'remote-smapi');
    mkdirSync(secret, { recursive: true });
    writeFileSync(join(secret, 'userid'), 'MAINT\n');
    writeFileSync(join(secret, 'password'), 'remote-pw\n');
    app = await startTestStandalone(state.dir);
    remote = createSmapiHypervisor({ hostName: 'remote', caller: createSmapiClient({ host: '127.0.0.1', port: server.port, auth: { userid: 'MAINT', password: 'remote-pw' }, retries: 0 }) });
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await remote?.close();
    await server?.close();
    state.cleanup();
  });

  async function readyGuest(name: string): Promise<ZGuest> {
    for (let i = 0; i < 400; i += 1) {
      const g = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name });
      if (g?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return g;
      await delay(50);
    }
    throw new Error(`ZGuest ${name} did not become Ready`);
  }

  it('reconciles guests on every host it holds, each on its own host', async () => {
    const hosts: ZHost[] = [
      { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'lab' }, spec: { simulated: true } },
      { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'remote' }, spec: { smapi: { host: '127.0.0.1', port: server.port, credentialsSecret: 'remote-smapi' } } },
    ];
    for (const h of hosts) await app.store.create(h);
    const guest = (name: string, userid: string, host?: string): ZGuest => ({
      apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid, vcpus: 1, memory: '512M', powerState: 'On', ...(host ? { host } : {}) },
    });
    for (const g of [guest('on-default', 'DEF01'), guest('on-lab', 'LAB01', 'lab'), guest('on-remote', 'REM01', 'remote')]) await app.store.create(g);
    await Promise.all(['on-default', 'on-lab', 'on-remote'].map(readyGuest));

    expect((await remote.describeGuest('REM01'))?.power).toBe('on');
    expect(await remote.describeGuest('LAB01')).toBeUndefined();
    expect((await app.hosts.forHost('lab')!.describeGuest('LAB01'))?.power).toBe('on');
    expect(await app.hosts.forHost('lab')!.describeGuest('REM01')).toBeUndefined();
    expect((await app.hosts.forHost('default')!.describeGuest('DEF01'))?.power).toBe('on');
    expect(await app.hosts.forHost('default')!.describeGuest('LAB01')).toBeUndefined();
    expect(app.hosts.hosts().sort()).toEqual(['default', 'lab', 'remote']);
  });
});
