/**
 * For plan == execution tests: the simulator served over SMAPI TCP on loopback, and hosts over it whose
 * every write is recorded where it leaves the operator (reads go through unrecorded), so a plan's calls
 * can be compared with what the reconciler really sends.
 */
import type { DescribedCall } from '../../src/controllers/kit/plan-describe.js';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { createSimHost } from '../../src/hypervisor/sim/index.js';
import { createSmapiClient, createSmapiServer, type SmapiCaller, type SmapiServer } from '../../src/hypervisor/smapi/index.js';
import { isReadOnlySmapi, type PlannedCall } from '../../src/hypervisor/zvm/dry-run.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';

export interface PlanSim {
  client: SmapiCaller;
  close(): Promise<void>;
}

export async function startPlanSim(): Promise<PlanSim> {
  const auth = { userid: 'MAINT', password: 'PLANTEST' };
  const server: SmapiServer = await createSmapiServer({ handler: createSimHost(), auth, host: '127.0.0.1', port: 0 });
  const client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, poolSize: 2, timeoutMs: 10_000 });
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A host over `client` whose writes land in `sent`; with `mgmt`, the management guest's operations too. */
export function aRecordedHost(client: SmapiCaller, opts: { mgmt?: boolean } = {}): { hv: Hypervisor; sent: PlannedCall[] } {
  const sent: PlannedCall[] = [];
  const caller: SmapiCaller = {
    async call(fn, target, params = {}, o) {
      if (!isReadOnlySmapi(fn)) sent.push({ kind: 'smapi', function: fn, target, params });
      return client.call(fn, target, params, o);
    },
    close: async () => undefined,
  };
  // the management guest's boundary: its operations are recorded and succeed (no SSH server in this tier)
  const mgmt = opts.mgmt ? {
    vmcp: async () => ({ exitCode: 0, output: '' }),
    listImages: async () => [],
    describeImage: async () => undefined,
    deployImage: async (req) => void sent.push({ kind: 'mgmt', op: 'deployImage', target: req.userid.toUpperCase(), params: { ...req } }),
    forgetGuest: async (userid) => void sent.push({ kind: 'mgmt', op: 'forgetGuest', target: userid.toUpperCase(), params: {} }),
    close: async () => undefined,
  } as Partial<MgmtOps> as MgmtOps : undefined;
  return { hv: createSmapiHypervisor({ hostName: 'default', caller, ...(mgmt ? { mgmt } : {}) }), sent };
}

/** A plan's calls without what was added for the reader (directory, CP, command): comparable with `sent`. */
export const plannedCalls = (plan: { steps: { calls: DescribedCall[] }[] }): PlannedCall[] =>
  plan.steps.flatMap((s) => s.calls).map(({ directory: _d, cp: _c, command: _m, ...call }) => call as PlannedCall);

/** Plans, then runs the reconciler; answers the plan and the writes that crossed the boundary meanwhile. */
export async function planThenRun<P>(sent: PlannedCall[], plan: () => Promise<P>, run: () => Promise<unknown>): Promise<{ planned: P; executed: PlannedCall[] }> {
  const planned = await plan();
  const from = sent.length;
  await run();
  return { planned, executed: sent.slice(from) };
}
