import { readFileSync } from 'node:fs';
import { createSimHost } from '../hypervisor/sim/index.js';
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
  // standalone --smapi-tcp reads `smapiPort` from this line to find an ephemeral port
  log.info({ smapiPort: server.port, bind: opts.bind, state: opts.state ?? '(memory)' }, 'simulated z/VM host serving SMAPI');
  const stop = async () => {
    await server.close();
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
