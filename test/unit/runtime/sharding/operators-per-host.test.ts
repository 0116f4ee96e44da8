import { Registry } from 'prom-client';
import { createOperator } from '../../../../src/cmd/operator.js';
import { createHostRegistry } from '../../../../src/hypervisor/host-registry.js';
import { silentLogger } from '../../../../src/log.js';
import { createMemoryEventRecorder, createMetrics } from '../../../../src/runtime/index.js';
import { HOST_LABEL } from '../../../../src/runtime/sharding/labeler.js';
import { createEmbeddedStore } from '../../../../src/store/index.js';

/** A sharded replica builds one operator per held host on one metrics registry: that must work. */
describe('one operator per held host', () => {
  it('builds several host operators on one registry, each registering its metrics once', async () => {
    const store = createEmbeddedStore();
    const registry = new Registry();
    const metrics = createMetrics(registry);
    const deps = { store, hosts: createHostRegistry(), events: createMemoryEventRecorder({ log: silentLogger() }), registry, log: silentLogger(), metrics };
    const operators = ['h1', 'h2', 'h3'].map((host) => createOperator({ ...deps, labelSelector: { [HOST_LABEL]: host } }));
    expect(operators.map((o) => o.runnables.length)).toEqual([operators[0].runnables.length, operators[0].runnables.length, operators[0].runnables.length]);
    expect(registry.getSingleMetric('zvm_drift_detected_total')).toBeDefined();
    await store.close();
  });
});
