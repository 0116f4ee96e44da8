import { Registry } from 'prom-client';
import {
  createController,
  createInformer,
  createManager,
  createMetrics,
  done,
  requeueAfter,
  type Reconciler,
} from '../../../src/runtime/index.js';
import type { ObjectKey } from '../../../src/store/port.js';
import { eventually } from './fake-clock.js';
import { createFakeStore } from './fake-store.js';

/** The intended use, end to end: store → informer → controller under a manager. */
describe('runtime wiring', () => {
  it('reconciles existing and new objects, survives a compacted watch, and stops cleanly', async () => {
    const store = createFakeStore();
    store.put('g1');
    const reconciled: string[] = [];
    const reconciler: Reconciler = {
      kind: 'ZGuest',
      async reconcile(key: ObjectKey) {
        reconciled.push(key.name);
        return key.name === 'poll' && reconciled.filter((n) => n === 'poll').length < 3 ? requeueAfter(1) : done();
      },
    };
    const informer = createInformer({ store, kind: 'ZGuest', backoff: { initialMs: 1, maxMs: 5 } });
    const registry = new Registry();
    const controller = createController({ name: 'zguest', reconciler, informer, concurrency: 2, metrics: createMetrics(registry) });
    const manager = createManager({ runnables: [informer, controller] });
    const running = manager.start();

    await eventually(() => reconciled.includes('g1'));
    store.put('poll');
    await eventually(() => reconciled.filter((n) => n === 'poll').length === 3);
    store.endWatches();
    store.put('g2');
    store.compact();
    await eventually(() => reconciled.includes('g2'));

    await manager.stop(5000);
    await running;
    const total = (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? [];
    expect(total.find((v) => v.labels.result === 'requeue_after')?.value).toBe(2);
    expect(total.find((v) => v.labels.result === 'success')?.value).toBeGreaterThanOrEqual(3);
  });
});
