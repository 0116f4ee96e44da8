/**
 * The state store as its own process for the store figures: opens one backend over a seeded state
 * directory, syncs an informer of every guest (the cache the operator keeps), then measures single
 * writes (one at a time) and 100-write bursts, and the bytes the process wrote per change
 * (`wchar` of /proc/self/io: every byte passed to write(2) and pwrite(2), WAL and checkpoints included).
 * Prints JSON lines: `ready`, `memory`, `single`, `burst`, and for SQLite `floor` (bare fsync'd commits).
 *
 *   node --expose-gc bench/store-proc.js <json|sqlite> <stateDir> <guests>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteFile } from '../src/durable/index.js';
import { silentLogger } from '../src/log.js';
import { createInformer } from '../src/runtime/index.js';
import { openBackend, type Backend } from './lib/state-backend.js';
import { guestName } from './lib/seed.js';

const [backend, stateDir, countArg] = process.argv.slice(2) as [Backend, string, string];
const count = Number(countArg);
const WRITES = Number(process.env.STORE_WRITES ?? 300);
const BURSTS = Number(process.env.STORE_BURSTS ?? 20);
const BURST_SIZE = 100;
/** a phase stops early past this budget (the JSON store at 100 000 guests takes seconds per write) */
const PHASE_BUDGET_MS = Number(process.env.STORE_PHASE_MS ?? 20_000);

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const wchar = (): number => Number(/wchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);

const log = silentLogger();
const opening = performance.now();
const store = openBackend(backend, stateDir, log);
const informer = createInformer({ store, kind: 'ZGuest', log });
void informer.start();
await informer.waitForSync();
// ready: since the process started (Node's own start-up and module loading included); storeMs: open + first list
emit({ ready: performance.now(), storeMs: performance.now() - opening, guests: informer.list().length });

(globalThis as { gc?: () => void }).gc?.();
const m = process.memoryUsage();
emit({ memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external } });

let seq = 0;
/** One change: an annotation on the next guest, round robin over all of them. */
function write(): Promise<unknown> {
  seq += 1;
  const name = guestName((seq * 7919) % count);
  return store.patch('ZGuest', { namespace: 'default', name }, { metadata: { annotations: { 'bench.zvm.dev/seq': String(seq) } } });
}

async function phase(rounds: number, size: number): Promise<{ ms: number[]; changes: number; bytes: number }> {
  const ms: number[] = [];
  const before = wchar();
  const started = performance.now();
  for (let i = 0; i < rounds && performance.now() - started < PHASE_BUDGET_MS; i++) {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: size }, write));
    ms.push(performance.now() - t0);
  }
  return { ms, changes: ms.length * size, bytes: wchar() - before };
}

emit({ single: await phase(WRITES, 1) });
emit({ burst: await phase(BURSTS, BURST_SIZE) });
informer.stop();
await store.close();
if (backend === 'sqlite') emit({ floor: commitFloor() });
process.exit(0);

/** The disk's floor for a durable write: one-row transactions, synchronous=FULL, nothing else around them. */
function commitFloor(): number[] {
  const db = openSqliteFile(join(stateDir, 'floor.db'));
  db.exec('CREATE TABLE t (v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const ms: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const t0 = performance.now();
    db.transaction(() => insert.run('x'.repeat(1400)));
    ms.push(performance.now() - t0);
  }
  db.close();
  return ms;
}
