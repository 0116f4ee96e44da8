import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TimeoutError } from '../errors.js';
import { createInProcessCaller } from '../hypervisor/in-process-caller.js';
import { createSimHost } from '../hypervisor/sim/index.js';
import { createSmapiClient } from '../hypervisor/smapi/index.js';
import type { SmapiCaller } from '../hypervisor/smapi/types.js';
import type { Logger } from '../log.js';

export interface SimulatedHostOptions {
  stateFile: string;
  latencyMs: number;
  /** run `zvm-operator sim` as a child process and speak SMAPI over TCP to it */
  tcp: boolean;
  log: Logger;
}

export interface SimulatedHost {
  caller: SmapiCaller;
  close(): Promise<void>;
}

const SIM_USERID = 'MAINT';
const START_TIMEOUT_MS = 30_000;

/** The `default` host of standalone mode: the simulator in-process, or behind the real wire. */
export async function connectSimulatedHost(o: SimulatedHostOptions): Promise<SimulatedHost> {
  if (!o.tcp) {
    const sim = createSimHost({ statePath: o.stateFile, latencyMs: o.latencyMs });
    return { caller: createInProcessCaller({ handler: sim }), close: () => sim.close() };
  }
  const password = randomBytes(12).toString('hex');
  const { child, port } = await spawnSim(o, password);
  const caller = createSmapiClient({ host: '127.0.0.1', port, auth: { userid: SIM_USERID, password }, poolSize: 8, timeoutMs: 30_000, log: o.log });
  return {
    caller,
    async close() {
      await caller.close();
      await stopChild(child);
    },
  };
}

/** Command line that runs our own binary, whether we run from TypeScript sources or from dist/. */
function selfCommand(): string[] {
  const main = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url));
  return main.endsWith('.ts') ? ['--import', 'tsx', main] : [main];
}

async function spawnSim(o: SimulatedHostOptions, password: string): Promise<{ child: ChildProcess; port: number }> {
  const args = [...selfCommand(), 'sim', '--port', '0', '--state', o.stateFile, '--latency-ms', String(o.latencyMs)];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ZVM_SIM_USERID: SIM_USERID, ZVM_SIM_PASSWORD: password },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError('the simulator process did not start listening')), START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`the simulator process exited with code ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      const m = /"smapiPort":(\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  o.log.info({ pid: child.pid, port }, 'simulator process started');
  return { child, port };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
