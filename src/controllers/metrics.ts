/**
 * The controllers' own metrics (beyond controller-runtime's, see runtime/metrics.ts): guests by host
 * and phase, drift, orphans. Registered once per registry: a sharded replica builds one operator
 * per host it holds, all on the process's registry.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { hostOf, type ZGuest } from '../api/index.js';
import { registerOnce } from '../metrics.js';
import type { Runnable } from '../runtime/runnable.js';

/** Drift counters: what the detector found, and what the reconciles then repaired. */
export interface DriftMetrics {
  detected(host: string): void;
  repaired(host: string): void;
}

export function createDriftMetrics(registry: Registry): DriftMetrics {
  const labelNames = ['kind', 'host'] as const;
  const counter = (name: string, help: string) => registerOnce(registry, name, (registers) => new Counter({ name, help, labelNames, registers }));
  const detected = counter('zvm_drift_detected_total', 'Settled resources the host no longer matched (changed behind the operator)');
  const repaired = counter('zvm_drift_repaired_total', 'Drifted resources brought back to their spec');
  return {
    detected: (host) => detected.inc({ kind: 'ZGuest', host }),
    repaired: (host) => repaired.inc({ kind: 'ZGuest', host }),
  };
}

export function orphanGauge(registry: Registry): Gauge<'host'> {
  return registerOnce(registry, 'zvm_orphaned_guests', (registers) => new Gauge({
    name: 'zvm_orphaned_guests', help: 'Guests that carry the operator\'s owner mark but whose ZGuest no longer exists, per host', labelNames: ['host'] as const, registers,
  }));
}

type GuestList = () => ZGuest[];
const guestSources = new WeakMap<Registry, Set<GuestList>>();

function isReady(g: ZGuest): boolean {
  return g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** zvm_guests{host,phase} and zvm_guests_not_ready{host}, counted from the informer caches at scrape time. */
export function registerGuestGauges(registry: Registry): Set<GuestList> {
  let sources = guestSources.get(registry);
  if (!sources) guestSources.set(registry, (sources = new Set()));
  const all = sources;
  const guests = (): ZGuest[] => [...all].flatMap((list) => list());
  registerOnce(registry, 'zvm_guests', (registers) => new Gauge({
    name: 'zvm_guests', help: 'ZGuests this process reconciles, by host and status.phase', labelNames: ['host', 'phase'] as const, registers,
    collect() {
      this.reset();
      for (const g of guests()) this.inc({ host: hostOf(g), phase: g.status?.phase ?? 'Unknown' });
    },
  }));
  registerOnce(registry, 'zvm_guests_not_ready', (registers) => new Gauge({
    name: 'zvm_guests_not_ready', help: 'ZGuests whose Ready condition is not True, by host', labelNames: ['host'] as const, registers,
    collect() {
      this.reset();
      for (const g of guests()) if (!isReady(g)) this.inc({ host: hostOf(g) });
    },
  }));
  return all;
}

/** Counts the guests of `list` in zvm_guests while it runs (a sharded host's operator stops with its Lease). */
export function guestMetricsRunnable(registry: Registry, list: GuestList): Runnable {
  return {
    name: 'guest-metrics',
    async start(signal) {
      const sources = registerGuestGauges(registry);
      sources.add(list);
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      sources.delete(list);
    },
  };
}
