import perfHooks from 'node:perf_hooks';
import { jest } from '@jest/globals';
import { createProcessRegistry } from '../../../src/cmd/metrics-catalogue.js';

describe('process metrics', () => {
  // prom-client samples the event-loop delay every 10 ms by default: 100 wakes a second of a process with nothing to do
  it.each(['controller', 'rest', 'standalone'] as const)('%s samples the event-loop delay every 100 ms', (name) => {
    const spy = jest.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const registry = createProcessRegistry(name);
      expect(spy).toHaveBeenCalledWith(expect.objectContaining({ resolution: 100 }));
      expect(spy.mock.calls.every(([o]) => (o?.resolution ?? 10) >= 100)).toBe(true);
      registry.clear();
    } finally {
      spy.mockRestore();
    }
  });
});
