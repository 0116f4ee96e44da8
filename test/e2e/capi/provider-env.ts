/**
 * What every provider e2e test starts beside the kube-apiserver: the simulated ZHost (`zvm-operator sim`
 * with its SSH management guest and a state file), its ZHost object, an SMAPI client to look at the host,
 * and the compiled controller with the args of the clusterctl components' `manager` container.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { managerArgs } from '../../../src/capi/components.js';
import { createSmapiClient } from '../../../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { applyObjects, eventually, freePort, logNumber, spawnCli, stopProcess, type LoggedProcess, type OperatorEnv } from '../operator/helpers.js';

export interface ReaderFile { name?: string; fileType?: string; data?: string }

/** The simulated host: its SMAPI and SSH ports, the password of both, its state and SMAPI call log. */
export interface SimHost { sim: LoggedProcess; port: number; sshPort: number; password: string; statePath: string; callLog: string }

export interface ProviderEnv {
  host: SimHost;
  controller: LoggedProcess;
  hv: Hypervisor;
  /** The simulated host's reader files of a userid, from its state file (written before each command is answered). */
  readerOf(userid: string): ReaderFile[];
  /** Another apiserver's controller for the same host (its ZHost and Secrets applied there): `clusterctl move`. */
  attach(other: OperatorEnv, args?: string[]): Promise<LoggedProcess>;
  stop(): Promise<void>;
}

/**
 * The ZHost of the simulated host and the compiled controller on `o`, with the args of the components'
 * `manager` container (`args`: as `clusterctl init` installed them; default: as generated).
 */
async function startController(o: OperatorEnv, h: SimHost, args = managerArgs()): Promise<LoggedProcess> {
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password: h.password } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-mgmt' }, stringData: { password: h.password } },
    {
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' },
      spec: { smapi: { host: '127.0.0.1', port: h.port, credentialsSecret: 'sim-smapi' }, management: { host: '127.0.0.1', port: h.sshPort, user: 'zcc', keySecret: 'sim-mgmt', trustOnFirstUse: true } },
    },
  ]);
  // the manager container's args, as clusterctl renders them in the pod, with loopback ports for the test
  const probePort = await freePort();
  const podArgs = args
    .map((a) => a.replace('$(POD_NAMESPACE)', o.namespace))
    .filter((a) => !a.startsWith('--metrics-bind-address') && !a.startsWith('--health-probe-bind-address') && !a.startsWith('--sim-state-dir'));
  const controller = spawnCli(o, 'manager', [...podArgs, '--kubeconfig', o.kubeconfig, '--health-probe-bind-address', `127.0.0.1:${probePort}`, '--metrics-bind-address', '0', '--sim-state-dir', o.env.tempDir, '--poll-ms', '200']);
  try {
    await eventually('the manager to be ready', async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok === true, [controller]);
  } catch (err) {
    await stopProcess(controller);
    throw err;
  }
  return controller;
}

export async function startProviderEnv(o: OperatorEnv, args?: string[]): Promise<ProviderEnv> {
  const password = randomBytes(8).toString('hex');
  const statePath = join(o.env.tempDir, 'sim-state.json');
  const callLog = join(o.env.tempDir, 'sim-calls.jsonl');
  const sim = spawnCli(o, 'sim', ['sim', '--port', '0', '--userid', 'MAINT', '--password', password, '--ssh-port', '0', '--ssh-password', password, '--ssh-dir', join(o.env.tempDir, 'mgmt'), '--state', statePath, '--call-log', callLog]);
  const controllers: LoggedProcess[] = [];
  let hv: Hypervisor | undefined;
  const stop = async (): Promise<void> => {
    await hv?.close();
    for (const c of controllers) await stopProcess(c);
    await stopProcess(sim);
  };
  try {
    const host: SimHost = { sim, port: await logNumber(sim, 'smapiPort'), sshPort: await logNumber(sim, 'sshPort'), password, statePath, callLog };
    hv = createSmapiHypervisor({ hostName: 'default', caller: createSmapiClient({ host: '127.0.0.1', port: host.port, auth: { userid: 'MAINT', password }, timeoutMs: 10_000, retries: 0 }) });
    controllers.push(await startController(o, host, args));
    const readerOf = (userid: string): ReaderFile[] => {
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as { readers?: [string, ReaderFile[]][] };
      return state.readers?.find(([owner]) => owner === userid)?.[1] ?? [];
    };
    const attach = async (other: OperatorEnv, otherArgs?: string[]): Promise<LoggedProcess> => {
      const c = await startController(other, host, otherArgs);
      controllers.push(c);
      return c;
    };
    return { host, controller: controllers[0]!, hv, readerOf, attach, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
