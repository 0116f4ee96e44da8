/**
 * The counter of events a full queue dropped (cmd/metrics-catalogue.ts registers it at start). Its own
 * file: the catalogue, which every process loads, must not load the Kubernetes client with the recorder.
 */
import { Counter, type Registry } from 'prom-client';
import { registerOnce } from '../metrics.js';

export function registerEventMetrics(registry: Registry): Counter {
  return registerOnce(registry, 'zvm_events_dropped_total', (registers) => new Counter({
    name: 'zvm_events_dropped_total', help: 'Kubernetes Events not written because the recorder\'s queue was full', registers,
  }));
}
