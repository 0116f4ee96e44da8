/**
 * The change plan equals the execution, call for call: the plan is computed by the reconciler's planner
 * against the simulator over SMAPI TCP, then the reconciler runs, and every write that crosses the
 * SMAPI client (and every management-guest operation) is recorded at that boundary.
 */
import type { ZGuest } from '../../../src/api/index.js';
import { previewZGuest, type GuestPlan } from '../../../src/controllers/zguest/preview.js';
import { redactCall } from '../../../src/controllers/kit/plan-describe.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../src/controllers/zguest/definition.js';
import { silentLogger } from '../../../src/log.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { aControllerHarness, type Harness } from '../../builders/controller-harness.js';
import { aRecordedHost, planThenRun as planAndRun, plannedCalls, startPlanSim, type PlanSim } from '../../builders/recorded-host.js';
import type { PlannedCall } from '../../../src/hypervisor/zvm/dry-run.js';

let sim: PlanSim;

beforeAll(async () => {
  sim = await startPlanSim();
});
afterAll(() => sim.close());

const strip = (plan: GuestPlan): PlannedCall[] => plannedCalls(plan);

describe('ZGuest change plan', () => {
  let h: Harness;
  let host: ReturnType<typeof aRecordedHost>;
  let n = 0;
  let userid: string;

  beforeEach(() => {
    host = aRecordedHost(sim.client, { mgmt: true });
    h = aControllerHarness({ hosts: { default: host.hv } });
    userid = `PLAN${++n}`;
  });

  async function plan(key: ObjectKey): Promise<GuestPlan> {
    const guest = (await h.get(key)) as ZGuest;
    const { items } = await h.store.list<ZGuest>('ZGuest');
    return previewZGuest({ guest, hv: host.hv, defaults: DEFAULT_GUEST_DEFAULTS, store: h.store, log: silentLogger(), guests: items, signal: new AbortController().signal });
  }

  /** Plans, then lets the reconciler converge; answers the plan and what really crossed the boundary. */
  async function planThenRun(key: ObjectKey): Promise<{ planned: GuestPlan; executed: PlannedCall[] }> {
    const run = await planAndRun(host.sent, () => plan(key), () => h.settle(key));
    return { ...run, executed: run.executed.map(redactCall) };
  }

  it('plans a create as the calls the reconciler makes, with the directory it writes', async () => {
    const key = await h.createGuest({ userid, disks: [{ size: '1G' }], nics: [{ vdev: '1000', vswitch: 'VSW1' }] });
    const { planned, executed } = await planThenRun(key);
    expect(strip(planned)).toEqual(executed);
    expect(executed.map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual([
      'Image_Create_DM', 'Image_Disk_Create_DM', 'Virtual_Network_Adapter_Create_Extended_DM', 'Virtual_Network_Adapter_Connect_Vswitch_DM', 'Image_Activate',
    ]);
    expect(planned.steps.map((s) => s.step.op)).toEqual(['addFinalizer', 'createGuest', 'addDisk', 'createNic', 'coupleNic', 'start']);
    const create = planned.steps[1].calls[0];
    expect(create.directory?.added[0]).toMatch(new RegExp(`^USER ${userid} \\(redacted\\) `));
    expect(planned.steps[5].calls[0].cp).toBe(`XAUTOLOG ${userid}`);
    expect(planned.changes).toBe(true);
    expect((await plan(key)).changes).toBe(false); // converged: nothing left to do
  });

  it.each([
    ['CPUs', { vcpus: 3 }],
    ['memory', { memory: '3G' }],
    ['CPUs and memory', { vcpus: 4, memory: '3G' }],
    ['NICs', { nics: [{ vdev: '2000' }] }],
  ])('plans a change of %s call for call', async (_what, change) => {
    const key = await h.createGuest({ userid, nics: [{ vdev: '1000', vswitch: 'VSW1' }] });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: change });
    const { planned, executed } = await planThenRun(key);
    expect(executed.length).toBeGreaterThan(0);
    expect(strip(planned)).toEqual(executed);
  });

  it('plans a CPU and memory change as one locked rewrite carrying the CPU statements, then the live CPUs', async () => {
    const key = await h.createGuest({ userid, vcpus: 2, memory: '2G' });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { vcpus: 4, memory: '3G' } });
    const { planned, executed } = await planThenRun(key);
    expect(strip(planned)).toEqual(executed);
    expect(executed.map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual(['Image_Lock_DM', 'Image_Replace_DM', 'Image_CPU_Define', 'Image_CPU_Define']);
    expect(planned.steps.map((s) => s.step)).toEqual([{ op: 'rewriteDirectory', memory: '3G', cpus: 4 }, { op: 'defineActiveCpus', count: 4, active: 2 }]);
    const added = planned.steps[0].calls.flatMap((c) => c.directory?.added ?? []);
    expect(added).toEqual(expect.arrayContaining(['COMMAND DEFINE CPU 02 TYPE IFL', 'COMMAND DEFINE CPU 03 TYPE IFL', 'SHARE RELATIVE 400']));
    const state = await host.hv.describeGuest(userid);
    expect(state?.directory).toMatchObject({ cpus: 4, memory: '3G', share: 'RELATIVE 400' });
    expect(state?.active?.cpus).toBe(4);
    expect((await plan(key)).changes).toBe(false);
  });

  it('plans a deploy and a delete call for call, the delete listing the statements it removes', async () => {
    const key = await h.createGuest({ userid, powerState: 'Off', disks: [{ size: '2G', boot: true }] });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { image: 'rhel9' } });
    const deploy = await planThenRun(key);
    expect(strip(deploy.planned)).toEqual(deploy.executed);
    expect(deploy.executed).toEqual([expect.objectContaining({ kind: 'mgmt', op: 'deployImage', params: expect.objectContaining({ image: 'rhel9', vdev: '0100' }) })]);

    await h.store.delete('ZGuest', key);
    const del = await planThenRun(key);
    expect(strip(del.planned)).toEqual(del.executed);
    expect(del.executed.map((c) => (c.kind === 'smapi' ? c.function : c.op))).toEqual(['Image_Deactivate', 'Image_Delete_DM', 'forgetGuest']);
    const removed = del.planned.steps.flatMap((s) => s.calls).flatMap((c) => c.directory?.removed ?? []);
    expect(removed).toEqual(expect.arrayContaining([expect.stringMatching(/^MDISK 0100 /)]));
  });
});
