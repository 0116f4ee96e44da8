import { Registry } from 'prom-client';
import type { ZGuest } from '../../../../src/api/index.js';
import type { ConditionInput } from '../../../../src/controllers/conditions.js';
import { createDriftMetrics } from '../../../../src/controllers/metrics.js';
import { createZGuestDriftDetector } from '../../../../src/controllers/zguest/drift.js';
import { driftCondition, driftDetectedStatus, isDriftRepair } from '../../../../src/controllers/zguest/drift-status.js';
import { createObservedCache } from '../../../../src/controllers/zguest/observed-cache.js';
import { createMemoryEventRecorder } from '../../../../src/runtime/memory-event-recorder.js';
import type { MergePatch, ObjectKey, StateStore } from '../../../../src/store/port.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { aGuest } from '../../../builders/zguest.js';

const T0 = '2026-01-01T00:00:00.000Z';
const readyTrue = { type: 'Ready', status: 'True' as const, reason: 'GuestRunning', message: 'the guest is on as requested', lastTransitionTime: T0 };

/** A guest the controller has converged: observed generation, Ready=True, finalizer. */
const settled = (name: string, userid: string): ZGuest =>
  aGuest({ userid }, { name, status: { observedGeneration: 1, powerState: 'on', conditions: [readyTrue] } });

describe('drift in status', () => {
  it('on detection: Ready=False DriftDetected and Drifted=True, power as the host reports it', () => {
    const status = driftDetectedStatus(settled('a', 'A'), 'off', new Date(T0));
    expect(status.powerState).toBe('off');
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
  it('writes the host count, then status, an Event and a count for a settled guest before enqueuing it; a guest in transition is only enqueued', async () => {
    const hv = new FakeHypervisor();
    for (const userid of ['A', 'B']) await hv.createGuest({ userid, vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    const inTransition = aGuest({ userid: 'B' }, { name: 'b', status: { observedGeneration: 1, powerState: 'on', conditions: [{ ...readyTrue, status: 'False', reason: 'Starting' }] } });
    const guests = [settled('a', 'A'), inTransition];
    const order: string[] = [];
    const patches: MergePatch[] = [];
    const store = {
      patchStatus: async (kind: string, key: ObjectKey, status: MergePatch, options?: { resourceVersion?: string }) => {
        order.push(`${kind} ${key.name} at rv ${options?.resourceVersion}`);
        patches.push(status);
      },
    } as unknown as StateStore;
    const events = createMemoryEventRecorder();
    const registry = new Registry();
    const stop = new AbortController();
    const detector = createZGuestDriftDetector({
      hosts: { hosts: () => ['default'], forHost: () => hv },
      guests: { list: () => guests, waitForSync: async () => true },
      enqueue: (key) => {
        order.push(`enqueue ${key.name}`);
        if (order.filter((o) => o.startsWith('enqueue')).length === 2) stop.abort();
      },
      observed: createObservedCache(),
      periodMs: 60_000,
      report: { store, events, metrics: createDriftMetrics(registry) },
    });
    await detector.start(stop.signal);
    // the host's counts from the same answers (none of the two is on, both defined), then the drifted guest
    expect(order).toEqual(['ZHost default at rv undefined', 'ZGuest a at rv 1', 'enqueue a', 'enqueue b']);
    expect(patches[0]).toEqual({ activeGuests: 0, guestCount: 2 });
    expect(patches[1]).toMatchObject({ powerState: 'off', conditions: expect.arrayContaining([expect.objectContaining({ type: 'Drifted', status: 'True' })]) });
    expect(events.eventsFor(guests[0])).toEqual([expect.objectContaining({ type: 'Warning', reason: 'DriftDetected' })]);
    expect(events.eventsFor(guests[1])).toEqual([]);
    expect(await registry.metrics()).toMatch(/zvm_drift_detected_total\{kind="ZGuest",host="default"\} 1/);
  });
});
