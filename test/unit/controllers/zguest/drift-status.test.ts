import { Registry } from 'prom-client';
import type { ZGuest } from '../../../../src/api/index.js';
import type { ConditionInput } from '../../../../src/controllers/conditions.js';
import { createDriftMetrics } from '../../../../src/controllers/metrics.js';
import { createZGuestDriftDetector } from '../../../../src/controllers/zguest/drift.js';
import { createFactBoard, type DriftFact } from '../../../../src/controllers/kit/facts.js';
import { DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { driftCondition, driftMessage, isDriftRepair } from '../../../../src/controllers/zguest/drift-status.js';
import { computeZGuestStatus } from '../../../../src/controllers/zguest/status.js';
import type { ResolvedZGuest } from '../../../../src/controllers/zguest/class.js';
import { createObservedCache } from '../../../../src/controllers/zguest/observed-cache.js';
import { createMemoryEventRecorder } from '../../../../src/runtime/memory-event-recorder.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { aGuest } from '../../../builders/zguest.js';

const T0 = '2026-01-01T00:00:00.000Z';
const readyTrue = { type: 'Ready', status: 'True' as const, reason: 'GuestRunning', message: 'the guest is on as requested', lastTransitionTime: T0 };

/** A guest the controller has converged: observed generation, Ready=True, finalizer. */
const settled = (name: string, userid: string): ResolvedZGuest =>
  aGuest({ userid }, { name, status: { observedGeneration: 1, powerState: 'on', conditions: [readyTrue] } });

/** What the reconcile writes from the detector's fact, before it repairs anything (status.ts, the one author). */
function driftDetectedStatus(guest: ResolvedZGuest, finding: DriftFact['finding'], now: Date) {
  const drift: DriftFact = { finding, message: driftMessage(guest, finding), uid: guest.metadata.uid };
  const plan = { steps: [], ownership: 'owned' as const, problems: [] };
  return computeZGuestStatus({ guest, hostName: 'default', observed: undefined, plan, pending: false, applied: [], defaults: DEFAULT_GUEST_DEFAULTS, now, drift });
}

describe('drift in status', () => {
  it('on detection: Ready=False DriftDetected and Drifted=True, power as the host reports it, the phase from the phase table', () => {
    const status = driftDetectedStatus(settled('a', 'A'), 'off', new Date(T0));
    expect(status.powerState).toBe('off');
    expect(status.phase).toBe('Starting');
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'DriftDetected', message: expect.stringContaining('A is off on the host') }),
      expect.objectContaining({ type: 'Drifted', status: 'True', reason: 'PowerStateChanged' }),
    ]);
    expect(driftDetectedStatus(settled('a', 'A'), 'missing', new Date(T0)).conditions?.[1]).toMatchObject({ reason: 'GuestMissing' });
  });

  it('a reconcile keeps Drifted=True until Ready, then reports the repair once', () => {
    const detected = driftDetectedStatus(settled('a', 'A'), 'off', new Date(T0)).conditions;
    const notReady: ConditionInput = { type: 'Ready', status: 'False', reason: 'Starting', message: 'the guest is off, spec asks for on' };
    const ready: ConditionInput = { type: 'Ready', status: 'True', reason: 'GuestRunning', message: 'the guest is on as requested' };
    expect(driftCondition(undefined, ready)).toBeUndefined();
    expect(driftCondition(detected, notReady)).toMatchObject({ status: 'True', reason: 'PowerStateChanged' });
    const repaired = driftCondition(detected, ready);
    expect(repaired).toMatchObject({ status: 'False', reason: 'DriftRepaired' });
    const after = { conditions: [{ ...repaired!, lastTransitionTime: T0 }] };
    expect(isDriftRepair({ conditions: detected }, after)).toBe(true);
    expect(isDriftRepair(after, after)).toBe(false);
  });
});

describe('drift detector reporting', () => {
  it('records the host count and, for a settled guest, the drift fact, an Event and a count before enqueuing it; a guest in transition is only enqueued; it writes no status', async () => {
    const hv = new FakeHypervisor();
    for (const userid of ['A', 'B']) await hv.createGuest({ userid, vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    const inTransition = aGuest({ userid: 'B' }, { name: 'b', status: { observedGeneration: 1, powerState: 'on', conditions: [{ ...readyTrue, status: 'False', reason: 'Starting' }] } });
    const guests: ZGuest[] = [settled('a', 'A'), inTransition];
    const order: string[] = [];
    const facts = createFactBoard();
    facts.onHostChange((host) => order.push(`host fact ${host}`));
    const events = createMemoryEventRecorder();
    const registry = new Registry();
    const stop = new AbortController();
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => guests, waitForSync: async () => true },
      enqueue: (key) => {
        order.push(`enqueue ${key.name} (drift fact: ${facts.drift(`default/${key.name}`)?.finding ?? 'none'})`);
        if (order.filter((o) => o.startsWith('enqueue')).length === 2) stop.abort();
      },
      observed: createObservedCache(),
      periodMs: 60_000,
      report: { facts, events, metrics: createDriftMetrics(registry) },
    });
    await detector.start(stop.signal);
    // the host's counts from the same answers (none of the two is on, both defined), then the drifted guest
    expect(order).toEqual(['host fact default', 'enqueue a (drift fact: off)', 'enqueue b (drift fact: none)']);
    expect(facts.host('default')).toEqual({ activeGuests: 0, guestCount: 2 });
    expect(facts.drift('default/a')).toMatchObject({ finding: 'off', uid: guests[0].metadata.uid, message: expect.stringContaining('A is off on the host') });
    expect(events.eventsFor(guests[0])).toEqual([expect.objectContaining({ type: 'Warning', reason: 'DriftDetected' })]);
    expect(events.eventsFor(guests[1])).toEqual([]);
    expect(await registry.metrics()).toMatch(/zvm_drift_detected_total\{kind="ZGuest",host="default"\} 1/);
  });
});
