import { randomBytes } from 'node:crypto';
import { createSmapiClient } from '../../../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { applyObjects, logNumber, spawnCli, type LoggedProcess, type OperatorEnv } from './helpers.js';

/**
 * A host several processes share: `zvm-operator sim` serving SMAPI on loopback, a credentials Secret
 * in the operator's namespace and a ZHost `default` pointing at it. The test reads the host through
 * its own SMAPI client, as a second opinion next to the resources' status.
 */
export interface SharedHost {
  sim: LoggedProcess;
  port: number;
  hypervisor: Hypervisor;
  close(): Promise<void>;
}

export async function startSharedHost(o: OperatorEnv): Promise<SharedHost> {
  const password = randomBytes(8).toString('hex');
  const sim = spawnCli(o, 'sim', ['sim', '--port', '0', '--userid', 'MAINT', '--password', password]);
  const port = await logNumber(sim, 'smapiPort');
  await applyObjects(o, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sim-smapi' }, stringData: { userid: 'MAINT', password } },
    { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'default' }, spec: { smapi: { host: '127.0.0.1', port, credentialsSecret: 'sim-smapi' } } },
  ]);
  const caller = createSmapiClient({ host: '127.0.0.1', port, auth: { userid: 'MAINT', password }, timeoutMs: 10_000, retries: 0 });
  const hypervisor = createSmapiHypervisor({ hostName: 'default', caller });
  return { sim, port, hypervisor, close: () => hypervisor.close() };
}

/** A ZGuest object to apply with kubectl. */
export function aZGuest(name: string, userid: string, powerState: 'Running' | 'Stopped' | 'On' | 'Off' = 'On'): Record<string, unknown> {
  return { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name }, spec: { userid, vcpus: 1, memory: '512M', powerState } };
}
