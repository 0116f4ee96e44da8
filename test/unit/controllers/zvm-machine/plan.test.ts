/** planMachine: the InfraMachine reconcile order of the Cluster API book, as (facts) → (steps, wait) tables. */
import { BOOTSTRAP_PUNCHED_ANNOTATION, DELETE_FOR_MOVE_ANNOTATION, INFRA_API_VERSION, ZVMMACHINE_FINALIZER, type ZGuest, type ZVMMachine } from '../../../../src/api/index.js';
import { buildGuest, machineUserid, providerIdOf, type Cluster, type Machine } from '../../../../src/controllers/zvm-machine/facts.js';
import { MachineWaits, planMachine, type MachineFacts } from '../../../../src/controllers/zvm-machine/plan.js';

const zm = (over: Partial<ZVMMachine['metadata']> = {}, spec: Partial<ZVMMachine['spec']> = {}): ZVMMachine => ({
  apiVersion: INFRA_API_VERSION, kind: 'ZVMMachine',
  metadata: { name: 'c1-md-0-x1', namespace: 'ns', uid: 'u1', generation: 1, finalizers: [ZVMMACHINE_FINALIZER], ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'm1', uid: 'mu' }], labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, ...over },
  spec: { class: 'small', image: 'rhcos', ...spec },
});
const machine = (spec: Machine['spec'] = { clusterName: 'c1', bootstrap: { dataSecretName: 'm1-boot' } }): Machine => ({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name: 'm1', namespace: 'ns' }, spec });
const cluster = (provisioned = true, paused = false): Cluster => ({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'c1', namespace: 'ns' }, spec: { paused }, status: { initialization: { infrastructureProvisioned: provisioned } } });
const facts = (f: Partial<MachineFacts> = {}): MachineFacts => ({ zm: zm(), machine: machine(), cluster: cluster(), taken: new Set(), ...f });
const guestOf = (m: ZVMMachine, phase: string, annotations?: Record<string, string>, powerState?: 'Running' | 'Stopped'): ZGuest => {
  const g = buildGuest(m, 'zvm1', machineUserid(m));
  return { ...g, metadata: { ...g.metadata, annotations }, spec: { ...g.spec, ...(powerState ? { powerState } : {}) }, status: { phase } };
};
const ops = (f: MachineFacts) => planMachine(f).steps.map((s) => s.op);
const reason = (f: MachineFacts) => planMachine(f).waiting?.reason;

describe('planMachine', () => {
  it('waits for the owner Machine, honours pause, and puts the finalizer on first', () => {
    expect(reason(facts({ machine: undefined }))).toBe(MachineWaits.owner);
    expect(planMachine(facts({ cluster: cluster(true, true) }))).toMatchObject({ steps: [], waiting: { reason: MachineWaits.paused } });
    expect(reason(facts({ zm: zm({ annotations: { 'cluster.x-k8s.io/paused': '' } }) }))).toBe(MachineWaits.paused);
    expect(ops(facts({ zm: zm({ finalizers: [] }), cluster: cluster(false) }))).toEqual(['addFinalizer']);
  });

  it('waits for the cluster\'s infrastructure, then for the bootstrap data', () => {
    expect(reason(facts({ cluster: cluster(false) }))).toBe(MachineWaits.clusterInfrastructure);
    expect(reason(facts({ machine: machine({ clusterName: 'c1' }) }))).toBe(MachineWaits.bootstrapData);
  });

  it('places the guest on the Machine\'s failure domain, records host and providerID, and defines it Stopped', () => {
    const plan = planMachine(facts({ machine: machine({ clusterName: 'c1', failureDomain: 'zvm2', bootstrap: { dataSecretName: 's' } }) }));
    const userid = machineUserid(zm());
    expect(plan.steps).toEqual([
      { op: 'setSpec', host: 'zvm2', providerID: `zvm://zvm2/${userid}` },
      { op: 'createGuest', guest: expect.objectContaining({ spec: expect.objectContaining({ host: 'zvm2', userid, class: 'small', image: 'rhcos', powerState: 'Stopped' }) }) },
    ]);
    expect(plan.waiting?.reason).toBe(MachineWaits.guestProvisioning);
  });

  it('takes the next userid when the hashed one is taken on that host', () => {
    const first = machineUserid(zm());
    const plan = planMachine(facts({ taken: new Set([`default/${first}`]) }));
    expect(plan.userid).toBe(machineUserid(zm(), 1));
    expect(plan.userid).not.toBe(first);
    expect(plan.userid).toMatch(/^K8S[0-9A-Z]{5}$/);
  });

  it('punches the bootstrap data once the guest is defined, then starts it; never twice', () => {
    const m = zm({}, { host: 'zvm1', providerID: providerIdOf('zvm1', machineUserid(zm())) });
    expect(reason(facts({ zm: m, guest: guestOf(m, 'Provisioning'), bootstrap: { digest: 'd' } }))).toBe(MachineWaits.guestProvisioning);
    expect(ops(facts({ zm: m, guest: guestOf(m, 'Stopped'), bootstrap: { digest: 'd' } }))).toEqual(['punchBootstrap', 'startGuest']);
    expect(planMachine(facts({ zm: m, guest: guestOf(m, 'Stopped'), bootstrap: { problem: 'bootstrap Secret s: no key value' } })).waiting).toEqual({ reason: MachineWaits.bootstrapInvalid, message: 'bootstrap Secret s: no key value' });
    const punched = { [BOOTSTRAP_PUNCHED_ANNOTATION]: 'd' };
    expect(ops(facts({ zm: m, guest: guestOf(m, 'Stopped', punched, 'Stopped') }))).toEqual(['startGuest']);
    expect(planMachine(facts({ zm: m, guest: guestOf(m, 'Starting', punched, 'Running') }))).toMatchObject({ steps: [], waiting: { reason: MachineWaits.guestStarting } });
    expect(planMachine(facts({ zm: m, guest: guestOf(m, 'Running', punched, 'Running') }))).toEqual({ steps: [], host: 'zvm1', userid: machineUserid(zm()) });
  });

  it('keeps the guest\'s host and userid whatever the failure domains say later (a move rebuilds status from them)', () => {
    const m = zm({}, {});
    const plan = planMachine(facts({ zm: m, machine: machine({ clusterName: 'c1', failureDomain: 'zvm9', bootstrap: { dataSecretName: 's' } }), guest: guestOf(m, 'Running', { [BOOTSTRAP_PUNCHED_ANNOTATION]: 'd' }, 'Running') }));
    expect(plan).toMatchObject({ host: 'zvm1', steps: [{ op: 'setSpec', host: 'zvm1', providerID: `zvm://zvm1/${machineUserid(m)}` }] });
    expect(plan.waiting).toBeUndefined();
  });

  it('reports a ZGuest of that name that is not its own, and a failed guest', () => {
    const other: ZGuest = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'c1-md-0-x1', namespace: 'ns' }, spec: { userid: 'OTHER', vcpus: 1, memory: '1G' } };
    expect(reason(facts({ guest: other }))).toBe(MachineWaits.guestConflict);
    expect(reason(facts({ guest: guestOf(zm(), 'Failed') }))).toBe(MachineWaits.guestFailed);
  });

  it('deletes the guest before the finalizer goes, and only its own', () => {
    const deleting = zm({ deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(ops(facts({ zm: deleting, guest: guestOf(deleting, 'Running') }))).toEqual(['deleteGuest']);
    const going = guestOf(deleting, 'Deleting');
    going.metadata.deletionTimestamp = '2026-01-01T00:00:01Z';
    expect(planMachine(facts({ zm: deleting, guest: going }))).toMatchObject({ steps: [], waiting: { reason: MachineWaits.deleting } });
    expect(ops(facts({ zm: deleting }))).toEqual(['removeFinalizer']);
    expect(ops(facts({ zm: zm({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [] }) }))).toEqual([]);
  });

  it('only releases its finalizer when clusterctl move deletes the copy it leaves behind: the guest stays', () => {
    const moved = zm({ deletionTimestamp: '2026-01-01T00:00:00Z', annotations: { [DELETE_FOR_MOVE_ANNOTATION]: '' } });
    expect(ops(facts({ zm: moved, guest: guestOf(moved, 'Running') }))).toEqual(['removeFinalizer']);
  });

  it('derives the same userid from the same namespace and name (what a move keeps), a different one from another', () => {
    expect(machineUserid(zm())).toBe(machineUserid(zm({ uid: 'another-uid' })));
    expect(machineUserid(zm())).not.toBe(machineUserid(zm({ name: 'c1-md-0-x2' })));
    expect(machineUserid(zm({}, { useridPrefix: 'ab' }))).toMatch(/^AB[0-9A-Z]{6}$/);
  });
});
