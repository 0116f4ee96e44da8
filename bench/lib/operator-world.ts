/**
 * The operator as standalone mode runs it — SQLite state store, the real controller runtime through
 * createOperator, the SMAPI adapter — but with the adapter talking to the bench host over TCP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { API_VERSION, type ZGuest, type ZHost } from '../../src/api/index.js';
import type { ResolvedGuestSpec, ResolvedZGuest } from '../../src/controllers/index.js';
import { createOperator, type Operator } from '../../src/cmd/operator.js';
import { createHostRegistry, type HostRegistry } from '../../src/hypervisor/host-registry.js';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';
import { pino } from 'pino';
import { createLogger, silentLogger } from '../../src/log.js';
import { createManager, createMemoryEventRecorder, type Manager } from '../../src/runtime/index.js';
import { createEmbeddedStore } from '../../src/store/index.js';
import type { StateStore } from '../../src/store/port.js';
import type { BenchHost } from './bench-host.js';
import { openBackend } from './state-backend.js';

export interface WorldOptions {
  host: BenchHost;
  /** file-backed like standalone mode (default), or in memory */
  persistent?: boolean;
  /** a state file to start from (copied into the world's directory by the caller) */
  stateDir?: string;
  resyncMs?: number;
  concurrency?: number;
  pollMs?: number;
  /** SMAPI connections of the adapter (default: the host's worker count) */
  poolSize?: number;
  /** the default host's management guest (image deploy); none by default */
  mgmt?: MgmtOps;
  /** log as the operator does at this level, into /dev/null (the formatting is paid, not a terminal); default silent */
  logLevel?: string;
}

export interface World {
  store: StateStore;
  hosts: HostRegistry;
  operator: Operator;
  manager: Manager;
  stateDir: string;
  /** lines logged so far (with `logLevel`) */
  logLines(): number;
  stop(): Promise<void>;
}

export async function ensureDefaultHost(store: StateStore): Promise<ZHost> {
  const found = await store.get<ZHost>('ZHost', { name: 'default' });
  if (found) return found;
  const host: ZHost = { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'default' }, spec: { simulated: true } };
  return store.create(host);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `zvm-bench-${prefix}-`));
}

/** pino's own file stream into /dev/null, counting the lines it is given */
function countingDevNull() {
  const devNull = pino.destination({ dest: '/dev/null', sync: false });
  const sink = { lines: 0, write: (line: string) => void (sink.lines++, devNull.write(line)), end: () => devNull.end() };
  return sink;
}

export async function startWorld(o: WorldOptions): Promise<World> {
  const sink = o.logLevel ? countingDevNull() : undefined;
  const log = sink ? createLogger({ level: o.logLevel }, sink) : silentLogger();
  const stateDir = o.stateDir ?? tempDir('world');
  // standalone's store (SQLite; a seeded store.json is imported on the first start), or one in memory
  const store = o.persistent === false ? createEmbeddedStore({ log }) : openBackend('sqlite', stateDir, log);
  await ensureDefaultHost(store);
  const hosts = createHostRegistry();
  hosts.register('default', createSmapiHypervisor({ hostName: 'default', caller: o.host.client(o.poolSize), log, ...(o.mgmt ? { mgmt: o.mgmt } : {}) }));
  const operator = createOperator({
    store, hosts, events: createMemoryEventRecorder({ log }), registry: new Registry(), log,
    resyncMs: o.resyncMs, concurrency: o.concurrency, pollMs: o.pollMs,
  });
  const manager = createManager({ log, runnables: operator.runnables });
  const running = manager.start().catch(() => undefined);
  return {
    store, hosts, operator, manager, stateDir,
    logLines: () => sink?.lines ?? 0,
    async stop() {
      await manager.stop();
      await running;
      await hosts.close();
      await store.close();
      sink?.end();
      if (!o.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export function aBenchGuest(name: string, spec: Partial<ResolvedGuestSpec> = {}): ResolvedZGuest {
  return {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: { name, namespace: 'default' },
    spec: { userid: name.toUpperCase(), vcpus: 1, memory: '1G', disks: [{ size: '1G', boot: true }], ...spec },
  };
}

export function isReady(g: ZGuest): boolean {
  const ready = g.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && g.status?.observedGeneration === g.metadata.generation;
}

/** Polls `done` every `everyMs` until it holds or the deadline passes; returns whether it held. */
export async function waitFor(done: () => boolean | Promise<boolean>, deadline: number, everyMs = 20): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return done();
}

/** Waits until the host (or whatever counts calls) has seen no call for `quietMs` (trailing reconciles finished). */
export async function waitQuiet(host: Pick<BenchHost, 'total'>, quietMs: number, deadline: number): Promise<void> {
  let last = host.total();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    const now = host.total();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
}
