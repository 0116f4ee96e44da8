/**
 * The Argo CD health checks shipped in helm/zvm-operator/argocd/, run by a Lua 5.1 interpreter
 * against ZGuests whose status the real ZGuest reconciler wrote (over a fake host), and against
 * hand-made objects for the kinds without a controller here.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { API_VERSION, type Condition, type ZGuest, type ZGuestAction, type ZGuestActionStatus, type ZGuestPool } from '../../src/api/index.js';
import { DEFAULT_GUEST_DEFAULTS, computePoolStatus, computeZGuestStatus, planZGuest, resolveLoosely, type PoolPlan } from '../../src/controllers/index.js';
import { unreachableMessage } from '../../src/controllers/zguest/outage.js';
import { computeActionStatus, type Outcome } from '../../src/controllers/zguest-action/plan.js';
import { HypervisorError } from '../../src/errors.js';
import { aControllerHarness, type Harness } from '../builders/controller-harness.js';
import { FakeHypervisor } from '../builders/fake-hypervisor.js';
import { evaluateHealth, type HealthStatus } from './lua.js';
import { ARGOCD_DIR, KINDS, healthScript, healthScriptPath } from './sources.js';

const signal = new AbortController().signal;

async function guestHealth(guest: ZGuest | undefined): Promise<HealthStatus> {
  if (!guest) throw new Error('guest not found');
  const [result] = await evaluateHealth([{ script: healthScriptPath('ZGuest'), obj: guest }]);
  return result;
}

async function settled(h: Harness, spec: Parameters<Harness['createGuest']>[0], meta?: Parameters<Harness['createGuest']>[1]): Promise<ZGuest | undefined> {
  const key = await h.createGuest(spec, meta);
  await h.settle(key);
  return h.get(key);
}

describe('ZGuest health.lua on statuses written by the reconciler', () => {
  it('calls a guest stopped because its spec says Off Healthy', async () => {
    const guest = await settled(aControllerHarness(), { powerState: 'Off' });
    expect(guest?.status?.phase).toBe('Stopped');
    expect(await guestHealth(guest)).toEqual({ status: 'Healthy', message: expect.stringMatching(/^Stopped \(GuestStopped\)/) });
  });

  it('calls a running guest and a declared-paused guest Healthy', async () => {
    const h = aControllerHarness();
    expect((await guestHealth(await settled(h, {}))).status).toBe('Healthy');
    const paused = await settled(h, { userid: 'LINUX02', powerState: 'Paused' }, { name: 'g2' });
    expect(paused?.status?.phase).toBe('Paused');
    expect((await guestHealth(paused)).status).toBe('Healthy');
  });

  it('calls a guest waiting for the host to log it on Progressing', async () => {
    // The status the controller writes between "start sent" and "guest seen on": computed by the
    // real planner and status function from the host's actual state (still off).
    const h = aControllerHarness();
    const key = await h.createGuest({ powerState: 'Off' });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { powerState: 'On' } });
    const stored = await h.get(key);
    if (!stored) throw new Error('guest vanished');
    const guest = resolveLoosely(stored);
    const observed = await h.hv.describeGuest('LINUX01');
    const plan = planZGuest({ guest, observed, defaults: DEFAULT_GUEST_DEFAULTS });
    expect(plan.steps.map((s) => s.op)).toEqual(['start']);
    const status = computeZGuestStatus({
      guest, hostName: 'default', observed, plan, pending: true, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now: new Date(),
    });
    expect(status.phase).toBe('Starting');
    expect(await guestHealth({ ...guest, status })).toEqual({ status: 'Progressing', message: expect.stringMatching(/^Starting \(Starting\)/) });
  });

  it('calls a guest without status, or whose latest generation is not observed yet, Progressing', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    expect(await guestHealth(await h.get(key))).toEqual({ status: 'Progressing', message: 'Waiting for the zvm-operator controller' });
    await h.settle(key);
    expect((await guestHealth(await h.get(key))).status).toBe('Healthy');
    await h.store.patch('ZGuest', key, { spec: { vcpus: 3 } });
    const changed = await h.get(key);
    expect(changed?.metadata.generation).toBe(2);
    expect(await guestHealth(changed)).toEqual({ status: 'Progressing', message: 'Waiting for the controller to observe generation 2' });
  });

  it('calls a guest the host refused Degraded, with the reason', async () => {
    const hv = new FakeHypervisor();
    hv.addDisk = async () => {
      throw new HypervisorError('Image_Disk_Create_DM', 596, 3211, 'no space in pool');
    };
    const guest = await settled(aControllerHarness({ hv }), { disks: [{ size: '1G' }] });
    expect(guest?.status?.phase).toBe('Failed');
    expect(await guestHealth(guest)).toEqual({ status: 'Degraded', message: expect.stringMatching(/^Failed \(HypervisorError\): .*rc 596, rs 3211/) });
  });

  it('calls the loser of a userid conflict Degraded and leaves the owner Healthy', async () => {
    const h = aControllerHarness();
    const owner = await settled(h, {}, { name: 'first' });
    const loser = await settled(h, {}, { name: 'second', namespace: 'other' });
    expect(loser?.status?.phase).toBe('Conflict');
    expect(await guestHealth(loser)).toEqual({ status: 'Degraded', message: expect.stringMatching(/^Conflict \(UseridConflict\)/) });
    expect((await guestHealth(owner)).status).toBe('Healthy');
  });

  it('calls a guest on an unknown host Degraded', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ host: 'nowhere' });
    await h.reconciler.reconcile(key, signal);
    await h.reconciler.reconcile(key, signal);
    expect(await guestHealth(await h.get(key))).toMatchObject({ status: 'Degraded', message: expect.stringContaining('HostNotFound') });
  });

  it('calls a guest on a host whose SMAPI stopped answering Degraded (HostUnreachable), Healthy again once reconciled', async () => {
    const h = aControllerHarness();
    const guest = await settled(h, { powerState: 'Off' });
    if (!guest) throw new Error('guest not found');
    // the ZGuest reconciler's status while its host has the outage fact
    const outage = { since: new Date().toISOString(), message: unreachableMessage('default', Date.now()) };
    const plan = { steps: [], ownership: 'owned' as const, problems: [] };
    const status = computeZGuestStatus({ guest: resolveLoosely(guest), hostName: 'default', observed: undefined, plan, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now: new Date(), outage });
    const unknown = { ...guest, status };
    expect(await guestHealth(unknown)).toEqual({ status: 'Degraded', message: expect.stringMatching(/^Unknown \(HostUnreachable\): the SMAPI of host default has not answered/) });
    expect((await guestHealth(guest)).status).toBe('Healthy');
  });

  it('keeps a guest Healthy but says so when a change waits for the next logon', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({ vcpus: 4 });
    await h.settle(key);
    await h.store.patch('ZGuest', key, { spec: { vcpus: 2 } });
    await h.settle(key);
    expect(await guestHealth(await h.get(key))).toEqual({ status: 'Healthy', message: expect.stringContaining('restart required: running with 4 CPUs') });
  });

  it('calls a guest being deleted Progressing', async () => {
    const h = aControllerHarness();
    const key = await h.createGuest({});
    await h.settle(key);
    await h.store.delete('ZGuest', key); // the finalizer keeps it until the controller is done
    expect(await guestHealth(await h.get(key))).toEqual({ status: 'Progressing', message: 'Pending deletion' });
  });
});

type Obj = Record<string, unknown>;

function resource(kind: string, status?: Obj, meta: Obj = {}): Obj {
  return { apiVersion: API_VERSION, kind, metadata: { name: 'x', generation: 2, ...meta }, spec: {}, ...(status ? { status } : {}) };
}

const cond = (type: string, status: string, reason: string, message = ''): Obj => ({ type, status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 2 });

describe('ZHost health.lua', () => {
  const cases: [string, string, Obj][] = [
    ['no status (nothing reports on hosts): configuration in place', 'Healthy', resource('ZHost')],
    ['Ready', 'Healthy', resource('ZHost', { observedGeneration: 2, smapiHealthy: true, hypervisorVersion: '7.3.0', conditions: [cond('Ready', 'True', 'Connected')] })],
    ['SMAPI not answering', 'Degraded', resource('ZHost', { observedGeneration: 2, smapiHealthy: false })],
    ['Synced False', 'Degraded', resource('ZHost', { observedGeneration: 2, conditions: [cond('Synced', 'False', 'AuthFailed', 'bad password')] })],
    ['connecting', 'Progressing', resource('ZHost', { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Connecting')] })],
    ['SSH host key refused', 'Degraded', resource('ZHost', { observedGeneration: 2, conditions: [cond('Ready', 'False', 'HostKeyChanged'), cond('HostKeyVerified', 'False', 'HostKeyChanged')] })],
    ['plain TCP warning only', 'Healthy', resource('ZHost', { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Ready'), cond('TransportSecure', 'False', 'PlainTcp')] })],
    ['generation not observed', 'Progressing', resource('ZHost', { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Connected')] })],
    ['being deleted', 'Progressing', resource('ZHost', undefined, { deletionTimestamp: '2026-01-01T00:00:00Z' })],
  ];
  it.each(cases)('%s → %s', async (_name, expected, obj) => {
    const [result] = await evaluateHealth([{ script: healthScriptPath('ZHost'), obj }]);
    expect(result.status).toBe(expected);
  });
});

describe('health.lua of the other kinds (conditions-based)', () => {
  const others = Object.keys(KINDS).filter((k) => !['ZGuest', 'ZHost', 'ZGuestAction', 'ZGuestClass'].includes(k));
  const cases: [string, string, (kind: string) => Obj][] = [
    ['no status yet', 'Progressing', (k) => resource(k)],
    ['generation not observed', 'Progressing', (k) => resource(k, { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Available')] })],
    ['Ready', 'Healthy', (k) => resource(k, { observedGeneration: 2, phase: 'Ready', conditions: [cond('Ready', 'True', 'Available'), cond('Synced', 'True', 'ReconcileSuccess')] })],
    ['Ready False', 'Progressing', (k) => resource(k, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Creating')] })],
    ['no Ready condition', 'Progressing', (k) => resource(k, { observedGeneration: 2, conditions: [] })],
    ['Synced False', 'Degraded', (k) => resource(k, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Creating'), cond('Synced', 'False', 'HypervisorError', 'rc 212')] })],
    ['phase Failed', 'Degraded', (k) => resource(k, { observedGeneration: 2, phase: 'Failed' })],
    ['Stalled True', 'Degraded', (k) => resource(k, { observedGeneration: 2, conditions: [cond('Stalled', 'True', 'Invalid')] })],
    ['being deleted', 'Progressing', (k) => resource(k, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available')] }, { deletionTimestamp: '2026-01-01T00:00:00Z' })],
  ];
  it.each(cases)('%s → %s, for every other kind', async (_name, expected, make) => {
    const results = await evaluateHealth(others.map((kind) => ({ script: healthScriptPath(kind), obj: make(kind) })));
    expect(results.map((r) => r.status)).toEqual(others.map(() => expected));
  });
});

describe('ZGuestClass health.lua: configuration nothing reconciles', () => {
  it('calls a class Healthy with its revision, and one being deleted Progressing', async () => {
    const [present, deleting] = await evaluateHealth([
      { script: healthScriptPath('ZGuestClass'), obj: resource('ZGuestClass') },
      { script: healthScriptPath('ZGuestClass'), obj: resource('ZGuestClass', undefined, { deletionTimestamp: '2026-01-01T00:00:00Z' }) },
    ]);
    expect(present).toEqual({ status: 'Healthy', message: 'Class at revision 2' });
    expect(deleting.status).toBe('Progressing');
  });
});

describe('ZGuestPool health.lua on statuses the pool controller computes', () => {
  const pool: ZGuestPool = {
    apiVersion: API_VERSION, kind: 'ZGuestPool', metadata: { name: 'web', namespace: 'default', uid: 'u', generation: 1 },
    spec: { replicas: 2, useridPrefix: 'WEB', template: { spec: { vcpus: 1, memory: '1G' } } },
  };
  const guest = (name: string, hash: string, ready: boolean): ZGuest => ({
    apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name, namespace: 'default', labels: { 'zvm.dev/pool-template-hash': hash } },
    spec: { userid: name.toUpperCase() }, status: { phase: ready ? 'Running' : 'Failed', conditions: [cond('Ready', ready ? 'True' : 'False', ready ? 'GuestRunning' : 'HypervisorError') as Condition] },
  });
  const health = async (guests: ZGuest[], stalled?: PoolPlan['stalled']) => {
    const plan: PoolPlan = { hash: 'h1', creates: [], deletes: [], lastIndex: 2, rollingOut: guests.some((g) => g.metadata.labels?.['zvm.dev/pool-template-hash'] !== 'h1'), stalled };
    const status = computePoolStatus({ pool, guests, plan, classRevision: undefined, now: new Date('2026-01-01T00:00:00Z') });
    const [result] = await evaluateHealth([{ script: healthScriptPath('ZGuestPool'), obj: { ...pool, status } }]);
    return result.status;
  };

  it('is Healthy with every guest Ready from the current template, Progressing while rolling, Degraded when stalled', async () => {
    expect(await health([guest('web00001', 'h1', true), guest('web00002', 'h1', true)])).toBe('Healthy');
    expect(await health([guest('web00001', 'h0', true), guest('web00002', 'h1', true)])).toBe('Progressing');
    expect(await health([guest('web00001', 'h0', true), guest('web00002', 'h1', false)], { reason: 'RolloutStalled', message: 'new guest web00002 failed' })).toBe('Degraded');
  });
});

describe('ZGuestAction health.lua on statuses the action controller writes (conditions Complete and Failed, never Ready)', () => {
  const action = (status?: ZGuestActionStatus, meta: Obj = {}): ZGuestAction => ({
    apiVersion: API_VERSION, kind: 'ZGuestAction', metadata: { name: 'move', namespace: 'default', generation: 1, ...meta },
    spec: { guest: 'g', action: 'LiveMigrate', liveMigrate: { destination: 'SSI2', operation: 'move' } }, ...(status ? { status } : {}),
  });
  // the outcomes createZGuestActionReconciler writes, through its own status function
  const written = (outcome: Outcome, before?: ZGuestActionStatus) => computeActionStatus(action(before), outcome, new Date('2026-01-01T00:00:00Z'));
  const running = written({ phase: 'Running', reason: 'Running', message: 'moving LINUX01 to SSI2', userid: 'LINUX01' });
  const cases: [string, string, ZGuestAction][] = [
    ['no status yet', 'Progressing', action()],
    ['running', 'Progressing', action(running)],
    ['waiting to retry', 'Progressing', action(written({ phase: 'Pending', reason: 'Retrying', message: 'will retry: busy' }, running))],
    ['moved', 'Healthy', action(written({ phase: 'Succeeded', reason: 'Relocated', message: 'LINUX01 moved to SSI2' }, running))],
    ['test passed', 'Healthy', action(written({ phase: 'Succeeded', reason: 'TestPassed', message: 'LINUX01 can be moved to SSI2' }, running))],
    ['refused by z/VM', 'Degraded', action(written({ phase: 'Failed', reason: 'HypervisorError', message: 'rc 8 rs 3000' }, running))],
    ['guest not logged on', 'Degraded', action(written({ phase: 'Failed', reason: 'GuestNotActive', message: 'guest LINUX01 is not logged on' }))],
    ['generation not observed', 'Progressing', action(written({ phase: 'Succeeded', reason: 'Relocated', message: 'moved' }), { generation: 2 })],
    ['being deleted after its TTL', 'Progressing', action(written({ phase: 'Succeeded', reason: 'Relocated', message: 'moved' }), { deletionTimestamp: '2026-01-01T01:00:00Z' })],
  ];
  it.each(cases)('%s → %s', async (_name, expected, obj) => {
    const [result] = await evaluateHealth([{ script: healthScriptPath('ZGuestAction'), obj }]);
    expect(result.status).toBe(expected);
  });

  it('says what happened', async () => {
    const moved = action(written({ phase: 'Succeeded', reason: 'Relocated', message: 'LINUX01 moved to SSI2' }, running));
    expect(moved.status?.conditions?.some((c) => c.type === 'Ready')).toBe(false);
    const [result] = await evaluateHealth([{ script: healthScriptPath('ZGuestAction'), obj: moved }]);
    expect(result).toEqual({ status: 'Healthy', message: 'Succeeded (Relocated): LINUX01 moved to SSI2' });
  });
});

describe('argocd-cm snippet', () => {
  it('holds one resource.customizations.health key per kind with that kind\'s script', () => {
    const cm = parse(readFileSync(join(ARGOCD_DIR, 'argocd-cm.yaml'), 'utf8')) as { kind: string; metadata: Obj; data: Record<string, string> };
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.metadata.name).toBe('argocd-cm');
    expect(Object.keys(cm.data).sort()).toEqual(Object.keys(KINDS).map((k) => `resource.customizations.health.zvm.dev_${k}`).sort());
    for (const kind of Object.keys(KINDS)) expect(cm.data[`resource.customizations.health.zvm.dev_${kind}`]).toBe(healthScript(kind));
  });

  it('runs scripts without the string library, as Argo CD does without useOpenLibs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zvm-lua-test-'));
    try {
      const script = join(dir, 'health.lua');
      await writeFile(script, 'return { status = string.upper("healthy"), message = "" }\n');
      const [result] = await evaluateHealth([{ script, obj: {} }]);
      expect(result.status).toBe('ERROR');
      expect(result.message).toMatch(/string/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
