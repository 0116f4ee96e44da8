import { readFileSync } from 'node:fs';
import { createSimHost } from '../hypervisor/sim/index.js';
import { startSimSshServer } from '../hypervisor/sim/ssh/index.js';
import { createSmapiServer } from '../hypervisor/smapi/index.js';
import { createLogger } from '../log.js';

export interface SimOptions {
  port: string;
  bind: string;
  state?: string;
  userid: string;
  password: string;
  latencyMs: string;
  concurrency: string;
  tlsCert?: string;
  tlsKey?: string;
  /** serve the management guest over SSH too (0 picks a free port) */
  sshPort?: string;
  sshDir?: string;
  sshUser?: string;
  sshPassword?: string;
  /** file of OpenSSH public keys allowed to log in */
  sshAuthorizedKeys?: string;
}

/** `zvm-operator sim`: a simulated z/VM host behind the real SMAPI wire protocol. */
export async function runSim(opts: SimOptions): Promise<void> {
  const log = createLogger();
  const sim = createSimHost({ statePath: opts.state });
  const server = await createSmapiServer({
    handler: sim,
    auth: { userid: opts.userid, password: opts.password },
    host: opts.bind,
    port: Number(opts.port),
    latencyMs: Number(opts.latencyMs),
    concurrency: Number(opts.concurrency),
    tls: opts.tlsCert && opts.tlsKey ? { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) } : undefined,
    log,
  });
  const ssh = opts.sshPort === undefined ? undefined : await startSimSshServer({
    sim, dataDir: opts.sshDir ?? 'sim-mgmt', host: opts.bind, port: Number(opts.sshPort), username: opts.sshUser ?? 'zcc', password: opts.sshPassword,
    authorizedKeys: opts.sshAuthorizedKeys ? readFileSync(opts.sshAuthorizedKeys, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')) : undefined, log,
  });
  const sshInfo = ssh ? { sshPort: ssh.port, hostKeySha256: ssh.hostKeySha256 } : {};
  // standalone --smapi-tcp reads `smapiPort` (and `sshPort`, `hostKeySha256`) from this line to find ephemeral ports
  log.info({ smapiPort: server.port, ...sshInfo, bind: opts.bind, state: opts.state ?? '(memory)' }, 'simulated z/VM host serving SMAPI');
  const stop = async () => {
    await ssh?.close();
    await server.close();
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
