/**
 * The controller as its own process for figures 5 and 6: the state store (JSON file or SQLite), the
 * operator (informer + controller + drift detector) and the SMAPI adapter over TCP to the bench
 * host in the parent process. Prints JSON lines: `ready` (ms since this process started, when the
 * informer cache holds every guest), then `memory` once the start-up work is done (after a GC).
 *
 *   node --expose-gc <compiled bench>/bench/controller-proc.js <smapiPort> <stateDir> [json|sqlite]   (bench/lib/child.ts compiles it)
 */
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { Registry } from 'prom-client';
import { createOperator } from '../src/cmd/operator.js';
import { createHostRegistry } from '../src/hypervisor/host-registry.js';
import { createSmapiClient } from '../src/hypervisor/smapi/index.js';
import { createSmapiHypervisor } from '../src/hypervisor/zvm/hypervisor.js';
import { silentLogger } from '../src/log.js';
import { createManager, createMemoryEventRecorder } from '../src/runtime/index.js';
// not bench-host.js: that loads the simulator, which the measured controller would not
import { BENCH_AUTH } from './lib/bench-auth.js';
import { openBackend, type Backend } from './lib/state-backend.js';

const [port, stateDir, backend = 'sqlite'] = process.argv.slice(2);
const log = silentLogger();
const store = openBackend(backend as Backend, stateDir, log);
const hosts = createHostRegistry();
const caller = createSmapiClient({ host: '127.0.0.1', port: Number(port), auth: BENCH_AUTH, poolSize: 12, timeoutMs: 60_000 });
hosts.register('default', createSmapiHypervisor({ hostName: 'default', caller, log }));
const operator = createOperator({ store, hosts, events: createMemoryEventRecorder({ log }), registry: new Registry(), log, concurrency: 16 });
const manager = createManager({ log, runnables: operator.runnables });
void manager.start();

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
while (!operator.hasSynced()) await new Promise((r) => setTimeout(r, 5));
emit({ ready: performance.now(), guests: operator.guests.list().length });

// the start-up work (drift detector's first look, reconciles of unsettled guests) settles, then measure
await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 3000)));
(globalThis as { gc?: () => void }).gc?.();
const m = process.memoryUsage();
// where the heap's committed memory is: the young generation's semi-spaces stay at their grown size
const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
emit({ memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers }, spaces, guests: operator.guests.list().length });
// HEAP_SNAPSHOT_DIR: a snapshot of what holds the heap, for bench/README.md's memory notes
if (process.env.HEAP_SNAPSHOT_DIR) writeHeapSnapshot(`${process.env.HEAP_SNAPSHOT_DIR}/controller-${operator.guests.list().length}.heapsnapshot`);
await manager.stop();
await hosts.close();
await store.close();
process.exit(0);
