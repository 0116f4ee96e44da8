import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { TimeoutError } from '../errors.js';
import { createInProcessCaller, createSmapiClient, type HostConnection, type SmapiCaller } from '../hypervisor/index.js';
import { createSimHost, type SimConfig, startSimSshServer } from '../hypervisor/sim/index.js';
import type { Logger } from '../log.js';
import type { Registry } from 'prom-client';
import { zvmArgs } from './self-command.js';

export interface SimulatedHostOptions {
  stateFile: string;
  latencyMs: number;
  /** run `zvm-operator sim` as a child process and speak SMAPI over TCP to it */
  tcp: boolean;
  log: Logger;
  /** serve the management guest over SSH on loopback, with its files in this directory */
  mgmtDir?: string;
  /** simulator configuration beyond the defaults (e.g. its FCP inventory); in-process only */
  simConfig?: Partial<SimConfig>;
  /**
   * a simulator already running as its own `zvm-operator sim` process: speak SMAPI to it and leave
   * it running on close (it outlives this process, as a real z/VM host outlives its operator)
   */
  address?: { host: string; port: number; userid: string; password: string };
  /** zvm_smapi_* metrics of the host, labelled with its ZHost name */
  metrics?: { registry: Registry; host: string };
}

/** How to reach the simulated management guest (SshEndpoint fields). */
export interface SimulatedMgmt {
  port: number;
  username: string;
  password: string;
  hostKeySha256: string;
}

export interface SimulatedHost {
  caller: SmapiCaller;
  /** what the caller reaches: the ZHost SIMULATED and ENDPOINT columns of the default host */
  connection: HostConnection;
  mgmt?: SimulatedMgmt;
  /** SMAPI calls per function the simulator answered (in-process only; tests check what was called) */
  callCounts?: () => Record<string, number>;
  close(): Promise<void>;
}

const MGMT_USER = 'zcc';

const SIM_USERID = 'MAINT';
const START_TIMEOUT_MS = 30_000;

function clientMetrics(o: SimulatedHostOptions): { metrics?: Registry; name?: string } {
  return o.metrics ? { metrics: o.metrics.registry, name: o.metrics.host } : {};
}

/** The `default` host of standalone mode: the simulator in-process, or behind the real wire. */
export async function connectSimulatedHost(o: SimulatedHostOptions): Promise<SimulatedHost> {
  if (o.address) {
    const caller = createSmapiClient({ host: o.address.host, port: o.address.port, auth: { userid: o.address.userid, password: o.address.password }, poolSize: 8, timeoutMs: 30_000, log: o.log, ...clientMetrics(o) });
    // a SMAPI server of its own (it may be the simulator, but this process cannot tell nor run it)
    return { caller, connection: { simulated: false, endpoint: `smapi://${o.address.host}:${o.address.port}` }, close: () => caller.close() };
  }
  const sshPassword = randomBytes(12).toString('hex');
  if (!o.tcp) {
    const sim = createSimHost({ ...o.simConfig, statePath: o.stateFile, latencyMs: o.latencyMs });
    const ssh = o.mgmtDir ? await startSimSshServer({ sim, dataDir: o.mgmtDir, username: MGMT_USER, password: sshPassword, log: o.log }) : undefined;
    return {
      caller: createInProcessCaller({ handler: sim, metrics: o.metrics }),
      connection: { simulated: true, endpoint: 'built-in simulator' },
      callCounts: () => sim.callCounts(),
      ...(ssh ? { mgmt: { port: ssh.port, username: MGMT_USER, password: sshPassword, hostKeySha256: ssh.hostKeySha256 } } : {}),
      async close() {
        await ssh?.close();
        await sim.close();
      },
    };
  }
  const password = randomBytes(12).toString('hex');
  const { child, port, ssh } = await spawnSim(o, password, sshPassword);
  const caller = createSmapiClient({ host: '127.0.0.1', port, auth: { userid: SIM_USERID, password }, poolSize: 8, timeoutMs: 30_000, log: o.log, ...clientMetrics(o) });
  return {
    caller,
    connection: { simulated: true, endpoint: `smapi://127.0.0.1:${port} (built-in simulator process)` },
    ...(ssh ? { mgmt: { ...ssh, username: MGMT_USER, password: sshPassword } } : {}),
    async close() {
      await caller.close();
      await stopChild(child);
    },
  };
}

type SimSsh = { port: number; hostKeySha256: string };

async function spawnSim(o: SimulatedHostOptions, password: string, sshPassword: string): Promise<{ child: ChildProcess; port: number; ssh?: SimSsh }> {
  const sshArgs = o.mgmtDir ? ['--ssh-port', '0', '--ssh-dir', o.mgmtDir, '--ssh-user', MGMT_USER] : [];
  const args = zvmArgs(['sim', '--port', '0', '--state', o.stateFile, '--latency-ms', String(o.latencyMs), ...sshArgs]);
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ZVM_SIM_USERID: SIM_USERID, ZVM_SIM_PASSWORD: password, ZVM_SIM_SSH_PASSWORD: sshPassword },
    // the IPC channel carries the ports (independent of LOG_LEVEL), and its end stops the child with us
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let started: SimReady;
  try {
    started = await simReady(child);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  const { smapiPort: port, sshPort, hostKeySha256 } = started;
  const ssh = sshPort !== undefined && hostKeySha256 ? { port: sshPort, hostKeySha256 } : undefined;
  o.log.info({ pid: child.pid, port }, 'simulator process started');
  return { child, port, ssh };
}

/** What `zvm-operator sim` sends its parent once it listens (src/cmd/sim.ts). */
interface SimReady {
  smapiPort: number;
  sshPort?: number;
  hostKeySha256?: string;
}

function simReady(child: ChildProcess): Promise<SimReady> {
  return new Promise<SimReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError('the simulator process did not start listening')), START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator process exited with code ${code}`));
    });
    child.on('message', (msg: { simReady?: SimReady }) => {
      if (!msg.simReady) return;
      clearTimeout(timer);
      resolve(msg.simReady);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
