import { appendFileSync, readFileSync } from 'node:fs';
import { createSimHost, startSimSshServer } from '../hypervisor/sim/index.js';
import { createSmapiServer } from '../hypervisor/index.js';
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
  /** serve this many independent hosts, one SMAPI listener each (consecutive ports, or free ones with port 0) */
  hosts?: string;
  /** append every SMAPI request as a JSON line: time, client address, host index, function, target */
  callLog?: string;
}

/** `--state` of host i when one process serves several: sim.json → sim-1.json, sim-2.json ... */
function statePathOf(state: string | undefined, index: number, count: number): string | undefined {
  if (!state || count === 1) return state;
  return state.replace(/(\.json)?$/, (ext) => `-${index}${ext}`);
}

/** The extra simulated hosts of `--hosts n` (SMAPI only; the first host carries the SSH endpoint). */
async function serveMoreHosts(opts: SimOptions, count: number, log: ReturnType<typeof createLogger>): Promise<{ ports: number[]; close: () => Promise<void> }> {
  const closers: Array<() => Promise<void>> = [];
  const ports: number[] = [];
  for (let i = 1; i < count; i += 1) {
    const sim = createSimHost({ statePath: statePathOf(opts.state, i, count) });
    const server = await createSmapiServer({
      handler: sim, auth: { userid: opts.userid, password: opts.password }, host: opts.bind,
      port: Number(opts.port) === 0 ? 0 : Number(opts.port) + i,
      latencyMs: Number(opts.latencyMs), concurrency: Number(opts.concurrency), log, onRequest: callRecorder(opts.callLog, i),
    });
    ports.push(server.port);
    closers.push(async () => {
      await server.close();
      await sim.close();
    });
  }
  return { ports, close: async () => void (await Promise.all(closers.map((c) => c()))) };
}

function callRecorder(path: string | undefined, host: number): ((call: { fn: string; target: string; peer: string; receivedAt: number }) => void) | undefined {
  if (!path) return undefined;
  return (call) => appendFileSync(path, `${JSON.stringify({ at: call.receivedAt, peer: call.peer, host, fn: call.fn, target: call.target })}\n`);
}

/** `zvm-operator sim`: a simulated z/VM host behind the real SMAPI wire protocol. */
export async function runSim(opts: SimOptions): Promise<void> {
  const log = createLogger();
  const count = Math.max(1, Number(opts.hosts ?? 1));
  const sim = createSimHost({ statePath: statePathOf(opts.state, 0, count) });
  const server = await createSmapiServer({
    handler: sim,
    auth: { userid: opts.userid, password: opts.password },
    host: opts.bind,
    port: Number(opts.port),
    latencyMs: Number(opts.latencyMs),
    concurrency: Number(opts.concurrency),
    tls: opts.tlsCert && opts.tlsKey ? { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) } : undefined,
    log,
    onRequest: callRecorder(opts.callLog, 0),
  });
  const more = await serveMoreHosts(opts, count, log);
  const ssh = opts.sshPort === undefined ? undefined : await startSimSshServer({
    sim, dataDir: opts.sshDir ?? 'sim-mgmt', host: opts.bind, port: Number(opts.sshPort), username: opts.sshUser ?? 'zcc', password: opts.sshPassword,
    authorizedKeys: opts.sshAuthorizedKeys ? readFileSync(opts.sshAuthorizedKeys, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')) : undefined, log,
  });
  const sshInfo = ssh ? { sshPort: ssh.port, hostKeySha256: ssh.hostKeySha256 } : {};
  // tests and benches read `smapiPort` (and `sshPort`, `hostKeySha256`) from this line to find ephemeral ports
  log.info({ smapiPort: server.port, ...sshInfo, bind: opts.bind, state: opts.state ?? '(memory)', ...(count > 1 ? { smapiPorts: [server.port, ...more.ports] } : {}) }, 'simulated z/VM host serving SMAPI');
  const stop = async () => {
    await more.close();
    await ssh?.close();
    await server.close();
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  if (process.send) {
    // started by standalone --smapi-tcp: tell it the ports whatever LOG_LEVEL says, and end with it
    process.send({ simReady: { smapiPort: server.port, ...sshInfo } });
    process.once('disconnect', () => void stop());
  }
}
