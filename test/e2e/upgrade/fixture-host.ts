/**
 * The simulated z/VM host of the release fixtures, served from this process on loopback: SMAPI over
 * the real wire format and the management guest over SSH, its state in a JSON file and its image
 * repository in a directory (both captured from release 0.1.0, test/fixtures/release-0.1.0/host/), and a
 * fixed SSH host key: a real host keeps its key across operator upgrades, and the ZHost's status pins it.
 * Every SMAPI request is counted by function.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSmapiServer } from '../../../src/hypervisor/index.js';
import { createSimHost, startSimSshServer, type SimStateJson } from '../../../src/hypervisor/sim/index.js';
import { createCallCounter, type CallCounter } from './smapi-calls.js';

export const HOST_AUTH = { userid: 'MAINT', password: 'release-fixture' };
export const MGMT_USER = 'zcc';

export interface FixtureHost {
  smapiPort: number;
  sshPort: number;
  hostKeySha256: string;
  calls: CallCounter;
  /** the host's whole state, as its file holds it */
  state(): SimStateJson;
  close(): Promise<void>;
}

/** `dir` holds sim.json (created when absent), mgmt/ and ssh-host-key; ports default to free ones. */
export async function startFixtureHost(dir: string, ports: { smapiPort: number; sshPort: number } = { smapiPort: 0, sshPort: 0 }): Promise<FixtureHost> {
  const statePath = join(dir, 'sim.json');
  const sim = createSimHost({ statePath });
  const calls = createCallCounter();
  const server = await createSmapiServer({ handler: sim, auth: HOST_AUTH, host: '127.0.0.1', port: ports.smapiPort, onRequest: (c) => calls.record(c.fn) });
  const ssh = await startSimSshServer({
    sim, dataDir: join(dir, 'mgmt'), host: '127.0.0.1', port: ports.sshPort, username: MGMT_USER, password: HOST_AUTH.password,
    hostKey: readFileSync(join(dir, 'ssh-host-key'), 'utf8'),
  });
  return {
    smapiPort: server.port, sshPort: ssh.port, hostKeySha256: ssh.hostKeySha256, calls,
    state: () => sim.snapshot(),
    async close() {
      await ssh.close();
      await server.close();
      await sim.close();
    },
  };
}
