import { API_VERSION, type Resource, type ZGuest, type ZGuestSpec } from '../../src/api/index.js';
import { createZGuestReconciler, type FactBoard } from '../../src/controllers/index.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { silentLogger } from '../../src/log.js';
import type { EventRecorder, EventType } from '../../src/runtime/events.js';
import type { Reconciler, Result } from '../../src/runtime/result.js';
import { createEmbeddedStore } from '../../src/store/embedded/index.js';
import type { ObjectKey, StateStore } from '../../src/store/port.js';
import { FakeHypervisor } from './fake-hypervisor.js';

export interface RecordedEvent {
  name: string;
  type: EventType;
  reason: string;
  message: string;
}

export function recordingEvents(): EventRecorder & { events: RecordedEvent[] } {
  const events: RecordedEvent[] = [];
  return { events, event: (obj: Resource, type, reason, message) => void events.push({ name: obj.metadata.name, type, reason, message }) };
}

export interface Harness {
  store: StateStore;
  hv: FakeHypervisor;
  events: RecordedEvent[];
  reconciler: Reconciler;
  /** the hosts the reconciler knows, by name: delete one to take its host away */
  hosts: Record<string, Hypervisor>;
  /** creates a ZGuest in the store (the store assigns uid and creationTimestamp) */
  createGuest(spec: Partial<ZGuestSpec>, meta?: { name?: string; namespace?: string }): Promise<ObjectKey>;
  get(key: ObjectKey): Promise<ZGuest | undefined>;
  /** reconciles until the result asks for nothing more; a thrown error counts as a crash and is retried */
  settle(key: ObjectKey, maxRuns?: number): Promise<{ runs: number; crashes: unknown[]; last: Result }>;
}

/** The ZGuest reconciler over the real embedded store (in memory) and a fake host named 'default'. */
export function aControllerHarness(opts: { hv?: FakeHypervisor; hosts?: Record<string, Hypervisor>; facts?: FactBoard } = {}): Harness {
  const store = createEmbeddedStore();
  const hv = opts.hv ?? new FakeHypervisor();
  const hosts: Record<string, Hypervisor> = { default: hv, ...opts.hosts };
  const recorder = recordingEvents();
  const reconciler = createZGuestReconciler({
    store,
    hypervisors: { forHost: (name) => hosts[name] },
    events: recorder,
    log: silentLogger(),
    pollMs: 10,
    clock: () => new Date('2026-01-01T00:00:00Z'),
    facts: opts.facts,
  });
  return {
    store,
    hv,
    events: recorder.events,
    reconciler,
    hosts,
    async createGuest(spec, meta = {}) {
      const obj: ZGuest = {
        apiVersion: API_VERSION,
        kind: 'ZGuest',
        metadata: { name: meta.name ?? 'g1', namespace: meta.namespace ?? 'default' },
        spec: { userid: 'LINUX01', vcpus: 2, memory: '2G', ...spec },
      };
      const created = await store.create(obj);
      return { namespace: created.metadata.namespace, name: created.metadata.name };
    },
    get: (key) => store.get<ZGuest>('ZGuest', key),
    async settle(key, maxRuns = 30) {
      const crashes: unknown[] = [];
      const signal = new AbortController().signal;
      for (let runs = 1; runs <= maxRuns; runs++) {
        try {
          const last = await reconciler.reconcile(key, signal);
          if (last.requeueAfterMs === undefined) return { runs, crashes, last };
        } catch (err) {
          crashes.push(err);
        }
      }
      throw new Error(`not settled after ${maxRuns} reconciles; crashes: ${crashes.map(String).join('; ')}`);
    },
  };
}
