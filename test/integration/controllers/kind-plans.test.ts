/**
 * ZVswitch and ZVolume change plans equal the execution, call for call: each plan is computed by its
 * reconciler's own planner and phases against the simulator over SMAPI TCP, then the reconciler runs,
 * and every write that crosses the SMAPI client is recorded at that boundary (as zguest-plan.test.ts).
 */
import type { FcpUsage, Resource, ZFcpTemplate, ZVolume, ZVswitch } from '../../../src/api/index.js';
import type { KindPlan } from '../../../src/controllers/kit/preview-steps.js';
import { createZFcpTemplateReconciler } from '../../../src/controllers/zfcp-template/reconciler.js';
import { createZVolumeReconciler } from '../../../src/controllers/zvolume/reconciler.js';
import { previewZVolume } from '../../../src/controllers/zvolume/preview.js';
import { createZVswitchReconciler } from '../../../src/controllers/zvswitch/reconciler.js';
import { previewZVswitch } from '../../../src/controllers/zvswitch/preview.js';
import { silentLogger } from '../../../src/log.js';
import type { Reconciler } from '../../../src/runtime/result.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import { keyOf, type StateStore } from '../../../src/store/port.js';
import type { PlannedCall } from '../../../src/hypervisor/zvm/dry-run.js';
import { aRecordedHost, planThenRun as planAndRun, plannedCalls, startPlanSim, type PlanSim } from '../../builders/recorded-host.js';

const noEvents = { event: () => undefined };
let sim: PlanSim;

beforeAll(async () => {
  sim = await startPlanSim();
});
afterAll(() => sim.close());

const strip = (plan: KindPlan): PlannedCall[] => plannedCalls(plan);
const fnNames = (calls: PlannedCall[]) => calls.map((c) => (c.kind === 'smapi' ? c.function : c.op));

/** Runs the reconciler until it stops asking to run again (bounded). */
async function settle(reconciler: Reconciler, obj: Resource): Promise<void> {
  const signal = new AbortController().signal;
  for (let runs = 0; runs < 20; runs++) {
    if ((await reconciler.reconcile(keyOf(obj), signal)).requeueAfterMs === undefined) return;
  }
  throw new Error('not settled after 20 reconciles');
}

describe('ZVswitch change plan', () => {
  let store: StateStore;
  let host: ReturnType<typeof aRecordedHost>;
  let reconciler: Reconciler;
  let n = 0;
  let name: string;

  beforeEach(() => {
    store = createEmbeddedStore();
    host = aRecordedHost(sim.client);
    reconciler = createZVswitchReconciler({ store, hypervisors: { forHost: () => host.hv }, events: noEvents, log: silentLogger() });
    name = `PLANSW${++n}`;
  });

  const get = async () => (await store.get<ZVswitch>('ZVswitch', { name: name.toLowerCase() }))!;
  const plan = async () => previewZVswitch({ vswitch: await get(), hv: host.hv, signal: new AbortController().signal });

  const planThenRun = () => planAndRun(host.sent, plan, async () => settle(reconciler, await get()));

  it('plans a create with its grants as the calls the reconciler makes, and nothing once converged', async () => {
    await store.create<ZVswitch>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZVswitch', metadata: { name: name.toLowerCase() },
      spec: { switchName: name, rdev: '1000', vid: '100', authorizedUsers: [{ userid: 'LINUX01', vlanIds: [100, 200] }, { userid: 'LINUX02' }] },
    });
    const { planned, executed } = await planThenRun();
    expect(strip(planned)).toEqual(executed);
    expect(fnNames(executed)).toEqual(['Virtual_Network_Vswitch_Create_Extended', 'Virtual_Network_Vswitch_Set_Extended', 'Virtual_Network_Vswitch_Set_Extended']);
    expect(planned.steps.map((s) => s.step.op)).toEqual(['addFinalizer', 'claim', 'create', 'grant', 'grant']);
    expect(planned.steps[2].calls[0].cp).toBe(`DEFINE VSWITCH ${name} RDEV 1000 (and in the system configuration)`);
    expect(planned.steps[3].calls[0].cp).toBe(`SET VSWITCH ${name} GRANT LINUX01 VLAN 100 200`);
    expect(await plan()).toMatchObject({ steps: [], changes: false });
  });

  it('plans a change of grants (a dropped VLAN is a revoke and a grant) and the deletion, call for call', async () => {
    await store.create<ZVswitch>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZVswitch', metadata: { name: name.toLowerCase() },
      spec: { switchName: name, vid: '100', authorizedUsers: [{ userid: 'LINUX01', vlanIds: [100, 200] }, { userid: 'LINUX02' }] },
    });
    await settle(reconciler, await get());
    await store.patch('ZVswitch', keyOf(await get()), { spec: { authorizedUsers: [{ userid: 'LINUX01', vlanIds: [100] }, { userid: 'LINUX03', vlanIds: [300] }] } });
    const change = await planThenRun();
    expect(strip(change.planned)).toEqual(change.executed);
    expect(change.planned.steps.map((s) => `${s.step.op} ${(s.step as { userid?: string }).userid ?? ''}`.trim())).toEqual(['revoke LINUX01', 'grant LINUX01', 'grant LINUX03', 'revoke LINUX02']);

    await store.delete('ZVswitch', keyOf(await get()));
    const deletion = await planThenRun();
    expect(strip(deletion.planned)).toEqual(deletion.executed);
    expect(fnNames(deletion.executed)).toEqual(['Virtual_Network_Vswitch_Delete_Extended']);
    expect(deletion.planned.steps.map((s) => s.step.op)).toEqual(['delete', 'removeFinalizer']);
  });
});

describe('ZVolume change plan', () => {
  let store: StateStore;
  let host: ReturnType<typeof aRecordedHost>;
  let reconciler: Reconciler;
  let n = 0;
  let userid: string;
  /** the ledger's author: the volume waits for it to count its connections */
  let ledger: Reconciler;

  const row = (fcp: string, path: number): FcpUsage => ({
    fcp, path, assignerId: '', reserved: 0, connections: 0, wwpnNpiv: 'c05076ddf7000001', wwpnPhy: 'c05076ddf7001111', chpid: '27', state: 'free', owner: '',
  });

  beforeEach(async () => {
    store = createEmbeddedStore();
    host = aRecordedHost(sim.client);
    const volumes = createZVolumeReconciler({ store, hypervisors: { forHost: () => host.hv }, events: noEvents, log: silentLogger() });
    ledger = createZFcpTemplateReconciler({ store, hypervisors: { forHost: () => host.hv }, events: noEvents, log: silentLogger() });
    // each volume run is followed by the template's, as the watches between them would do
    reconciler = {
      kind: 'ZVolume',
      reconcile: async (k, signal) => {
        const result = await volumes.reconcile(k, signal);
        await ledger.reconcile({ name: `tmpl${n}` }, signal);
        return result;
      },
    };
    userid = `VOLG${++n}`;
    // the guest the FCPs are dedicated to, logged on so that the active dedicate runs too
    await sim.client.call('Image_Create_DM', userid, { image_record_array: [`USER ${userid} PW 512M 512M G`] });
    await sim.client.call('Image_Activate', userid, {});
    const tmpl = await store.create<ZFcpTemplate>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZFcpTemplate', metadata: { name: `tmpl${n}` }, spec: { name: 'plan', fcpDevices: '1a00-1a01;1b00-1b01' },
    });
    // synced with the host just now: the template's runs only derive the ledger
    const fcps = [row('1a00', 0), row('1a01', 0), row('1b00', 1), row('1b01', 1)];
    await store.updateStatus<ZFcpTemplate>({ ...tmpl, status: { fcps, phase: 'Ready', lastSyncTime: new Date().toISOString(), pathCount: 2 } });
  });

  const key = () => ({ namespace: 'default', name: `vol${n}` });
  const get = async () => (await store.get<ZVolume>('ZVolume', key()))!;
  const plan = async () => previewZVolume({ volume: await get(), hv: host.hv, store, log: silentLogger(), signal: new AbortController().signal });

  const planThenRun = () => planAndRun(host.sent, plan, async () => settle(reconciler, await get()));

  it('plans an attach and a detach as the calls the reconciler makes, and leaves the FCP ledger as it was', async () => {
    await store.create<ZVolume>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZVolume', metadata: key(),
      spec: {
        assignerId: userid, fcpTemplateId: `tmpl${n}`, fcps: ['1a00', '1b00'], targetWwpns: ['0x5005076802100c1b'], lun: '0x0000000000000000',
        osVersion: 'rhel9.2', multipath: true,
      },
    });
    const ledger = async () => (await store.get<ZFcpTemplate>('ZFcpTemplate', { name: `tmpl${n}` }))?.status?.fcps;
    const before = await ledger();
    const attach = await planThenRun();
    expect(strip(attach.planned)).toEqual(attach.executed);
    expect(fnNames(attach.executed)).toEqual(['Image_Device_Dedicate_DM', 'Image_Device_Dedicate', 'Image_Device_Dedicate_DM', 'Image_Device_Dedicate']);
    expect(attach.planned.steps.map((s) => s.step.op)).toEqual(['addFinalizer', 'attach']);
    expect(attach.planned.steps[1].calls[0].directory).toEqual({ added: ['DEDICATE 1A00 1A00'], removed: [] });
    expect(attach.planned.steps[1].calls[1].cp).toBe(`ATTACH 1A00 TO ${userid} AS 1A00`);
    expect((await ledger())?.find((r) => r.fcp === '1a00')?.connections).toBe(1); // the run's, not the plan's
    expect(before?.find((r) => r.fcp === '1a00')?.connections).toBe(0);
    expect(await plan()).toMatchObject({ steps: [], changes: false });

    await store.delete('ZVolume', key());
    const planned = await plan();
    expect((await ledger())?.find((r) => r.fcp === '1a00')?.connections).toBe(1); // planning wrote nothing
    const from = host.sent.length;
    await settle(reconciler, await get());
    const executed = host.sent.slice(from);
    expect(strip(planned)).toEqual(executed);
    expect(fnNames(executed)).toEqual(['Image_Device_Undedicate', 'Image_Device_Undedicate_DM', 'Image_Device_Undedicate', 'Image_Device_Undedicate_DM']);
  });

  it('shows an FCP no template lists as a problem of the plan, with no call', async () => {
    await store.create<ZVolume>({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZVolume', metadata: key(),
      spec: { assignerId: userid, fcps: ['1c00'], targetWwpns: ['0x5005076802100c1b'], lun: '0x0000000000000000', osVersion: 'rhel9.2', multipath: false },
    });
    const planned = await plan();
    expect(planned.problems).toEqual(["attach: FCP '1c00' does not exist."]);
    expect(strip(planned)).toEqual([]);
  });
});
