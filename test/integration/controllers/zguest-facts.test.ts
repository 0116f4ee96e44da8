/**
 * The ZGuest reconciler is the one author of its status (docs/architecture.md §7.6): what the drift
 * detector and the outage tracker record (controllers/kit/facts.ts) shows in status only through its
 * reconcile, over the real embedded store and a fake host.
 */
import { createFactBoard } from '../../../src/controllers/index.js';
import type { ZGuest } from '../../../src/api/index.js';
import { aControllerHarness } from '../../builders/controller-harness.js';

const signal = new AbortController().signal;
const conditionOf = (g: ZGuest | undefined, type: string) => g?.status?.conditions?.find((c) => c.type === type);

describe('ZGuest status from the observers\' facts', () => {
  it('shows a recorded drift (Ready=False DriftDetected, Drifted=True) before repairing it, then Drifted=False DriftRepaired', async () => {
    const facts = createFactBoard();
    const h = aControllerHarness({ facts });
    const key = await h.createGuest({ powerState: 'On' });
    await h.settle(key);
    const settled = await h.get(key);
    expect(conditionOf(settled, 'Ready')?.status).toBe('True');
    await h.hv.stop('LINUX01'); // behind the controller's back
    const written: ZGuest[] = [];
    const update = h.store.updateStatus.bind(h.store);
    h.store.updateStatus = async (obj) => {
      written.push(structuredClone(obj) as unknown as ZGuest);
      return update(obj);
    };
    facts.recordDrift('default/g1', { finding: 'off', message: 'guest LINUX01 is off on the host', uid: settled?.metadata.uid });
    await h.settle(key);
    expect(conditionOf(written[0], 'Drifted')).toMatchObject({ status: 'True', reason: 'PowerStateChanged' });
    expect(conditionOf(written[0], 'Ready')).toMatchObject({ status: 'False', reason: 'DriftDetected' });
    expect(written[0]?.status?.powerState).toBe('off');
    const after = await h.get(key);
    expect(conditionOf(after, 'Drifted')).toMatchObject({ status: 'False', reason: 'DriftRepaired' });
    expect(conditionOf(after, 'Ready')?.status).toBe('True');
    expect(facts.drift('default/g1')).toBeUndefined(); // reported once
    expect((await h.hv.describeGuest('LINUX01'))?.power).toBe('on'); // and repaired on the host
  });

  it('ignores a drift recorded for an earlier object of the same name (another uid)', async () => {
    const facts = createFactBoard();
    const h = aControllerHarness({ facts });
    const key = await h.createGuest({ powerState: 'On' });
    await h.settle(key);
    facts.recordDrift('default/g1', { finding: 'off', message: 'an earlier guest', uid: 'uid-of-an-earlier-one' });
    await h.reconciler.reconcile(key, signal);
    expect(conditionOf(await h.get(key), 'Drifted')).toBeUndefined();
  });

  it('says Unknown (HostUnreachable, phase Unknown) while the outage fact lasts, without a host call, and computes from the host once it ends', async () => {
    const facts = createFactBoard();
    const h = aControllerHarness({ facts });
    const key = await h.createGuest({ powerState: 'On' });
    await h.settle(key);
    facts.recordHost('default', { outage: { since: '2026-01-01T00:00:00.000Z', message: 'the SMAPI of host default has not answered since 2026-01-01T00:00:00.000Z' } });
    let calls = 0;
    const describe = h.hv.describeGuest.bind(h.hv);
    h.hv.describeGuest = async (...args) => {
      calls += 1;
      return describe(...args);
    };
    await h.settle(key);
    const during = await h.get(key);
    expect({ phase: during?.status?.phase, ready: conditionOf(during, 'Ready')?.status, reason: conditionOf(during, 'Ready')?.reason }).toEqual({ phase: 'Unknown', ready: 'Unknown', reason: 'HostUnreachable' });
    expect(during?.status?.powerState).toBe('on'); // as last seen
    expect(calls).toBe(0);
    facts.recordHost('default', { outage: undefined });
    await h.settle(key);
    const after = await h.get(key);
    expect({ phase: after?.status?.phase, ready: conditionOf(after, 'Ready')?.status }).toEqual({ phase: 'Running', ready: 'True' });
  });
});
