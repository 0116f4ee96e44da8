import { Registry } from 'prom-client';
import type { ZGuest } from '../../../src/api/index.js';
import { guestMetricsRunnable } from '../../../src/controllers/metrics.js';
import { smapiOutcome } from '../../../src/hypervisor/smapi/metrics.js';

function guest(host: string, phase: string | undefined, ready: boolean): ZGuest {
  return {
    apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: `${host}-${phase}` },
    spec: { userid: 'G1', host, vcpus: 1, memory: '1G' },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: 'X', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  } as unknown as ZGuest;
}

describe('guest gauges', () => {
  it('count the guests of every running operator by host and phase, and forget an operator that stopped', async () => {
    const registry = new Registry();
    const a = new AbortController();
    const b = new AbortController();
    const runA = guestMetricsRunnable(registry, () => [guest('zvm1', 'Running', true), guest('zvm1', 'Running', true), guest('zvm1', 'Failed', false)]).start(a.signal);
    const runB = guestMetricsRunnable(registry, () => [guest('zvm2', undefined, false)]).start(b.signal);
    let text = await registry.metrics();
    expect(text).toContain('zvm_guests{host="zvm1",phase="Running"} 2');
    expect(text).toContain('zvm_guests{host="zvm1",phase="Failed"} 1');
    expect(text).toContain('zvm_guests{host="zvm2",phase="Unknown"} 1');
    expect(text).toContain('zvm_guests_not_ready{host="zvm1"} 1');
    expect(text).toContain('zvm_guests_not_ready{host="zvm2"} 1');
    b.abort();
    await runB;
    text = await registry.metrics();
    expect(text).not.toContain('host="zvm2"');
    expect(text).toContain('zvm_guests{host="zvm1",phase="Running"} 2');
    a.abort();
    await runA;
  });
});

describe('SMAPI outcome', () => {
  it('classes return codes into a few label values', () => {
    expect([0, 4, 8, 120, 596, -101, -110].map(smapiOutcome)).toEqual(['success', 'warning', 'error', 'error', 'error', 'transport_error', 'transport_error']);
  });
});
