/**
 * The simulator's state in SQLite (a state path ending in `.db`): one table per part of the host —
 * directory entries (with their MDISK and NICDEF statements), disk pools (volumes and the extents the
 * minidisks occupy), logged-on guests (active disks, NICs, dedicated devices), vswitches, consoles and
 * readers — one row per entry, plus `sim_meta` for counters, locks and profiles. A change writes only
 * the rows it touched (see tracked-map.ts), so a host with 100 000 guests is as cheap to change as one
 * with ten. Same durability contract as the JSON file (Persister): an answer leaves only after a commit
 * holding its change returned (synchronous=FULL); calls made together share one commit.
 * A `sim.json` beside a new `sim.db` is imported once and kept as `sim.json.migrated`.
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { ZvmError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { openSqliteFile, type SqliteDb as Db } from '../../durable/index.js';
import { deserializeState, loadStateFile, poolJson, runningJson, STATE_FORMAT_VERSION, vswitchJson, type Persister, type SimStateJson } from './persistence.js';
import { emptyState, type SimState } from './state.js';
import { TrackedMap } from './tracked-map.js';

/** A part of the state kept as one table of (key, json) rows. */
interface Family {
  table: string;
  field: 'entries' | 'pools' | 'running' | 'vswitches' | 'consoles' | 'consoleUnclosed' | 'readers';
  /** saved in SimStateJson as [key, value] pairs (otherwise as the values alone) */
  pairs: boolean;
  toJson(value: never): unknown;
}

const same = (value: unknown): unknown => value;

const FAMILIES: Family[] = [
  { table: 'directory_entries', field: 'entries', pairs: false, toJson: same },
  { table: 'disk_pools', field: 'pools', pairs: false, toJson: poolJson },
  { table: 'running_guests', field: 'running', pairs: false, toJson: runningJson },
  { table: 'vswitches', field: 'vswitches', pairs: false, toJson: vswitchJson },
  { table: 'consoles', field: 'consoles', pairs: true, toJson: same },
  { table: 'console_unclosed', field: 'consoleUnclosed', pairs: true, toJson: same },
  { table: 'readers', field: 'readers', pairs: true, toJson: same },
];
const POOLS = FAMILIES[1];

type Written = Map<string, Map<string, string>>;

const mapOf = (s: SimState, f: Family): TrackedMap<string, unknown> => s[f.field] as unknown as TrackedMap<string, unknown>;
/** Reads that must not count as touches (the persistence's own). */
const peek = (map: Map<string, unknown>, key: string): unknown => Map.prototype.get.call(map, key);

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS sim_meta (key TEXT PRIMARY KEY, json TEXT NOT NULL)',
  ...FAMILIES.map((f) => `CREATE TABLE IF NOT EXISTS ${f.table} (key TEXT PRIMARY KEY, json TEXT NOT NULL)`),
].join(';\n');

/** sim_meta rows: the scalars and small sets of the state. */
function metaRows(s: SimState): Array<[string, unknown]> {
  return [
    ['format', STATE_FORMAT_VERSION],
    ['seq', s.seq],
    ['nextMac', s.nextMac],
    ['nextSpoolId', s.nextSpoolId],
    ['locks', [...s.locks]],
    ['profiles', [...s.profiles]],
  ];
}

const digest = (json: string): string => createHash('sha1').update(json).digest('base64');

export function isSqliteStatePath(path: string | undefined): path is string {
  return path !== undefined && path.endsWith('.db');
}

/** The JSON file a new database imports: `sim.json` beside `sim.db`. */
export function legacyStatePath(path: string): string {
  return path.replace(/\.db$/, '.json');
}

export interface SqliteSimState {
  state: SimState;
  persister: Persister;
  /** entry rows written or removed so far (not counting sim_meta) */
  rowsWritten(): number;
}

/** Opens (or creates) the database, imports a legacy JSON file once, and returns the state with its persister. */
export function openSqliteSimState(path: string, log: Logger = silentLogger()): SqliteSimState {
  const db = openSqliteFile(path);
  db.exec(SCHEMA);
  const written: Written = new Map(FAMILIES.map((f) => [f.table, new Map()]));
  let state = loadRows(db, written);
  if (!state) {
    state = importLegacy(path, log);
    if (state) {
      writeAll(db, state, written);
      renameSync(legacyStatePath(path), `${legacyStatePath(path)}.migrated`);
      log.info({ from: legacyStatePath(path), to: path }, 'imported the simulator state file into its database');
    }
  }
  const tracked = track(state ?? emptyState());
  const counter = { rows: 0 };
  return { state: tracked, persister: createSqlitePersister(db, tracked, written, log, counter), rowsWritten: () => counter.rows };
}

function importLegacy(path: string, log: Logger): SimState | undefined {
  const legacy = legacyStatePath(path);
  return existsSync(legacy) ? loadStateFile(legacy, log) : undefined;
}

/** The saved state, or undefined for a new database; fills `written` with a digest of each row. */
function loadRows(db: Db, written: Written): SimState | undefined {
  const meta = new Map((db.prepare('SELECT key, json FROM sim_meta').all() as Array<{ key: string; json: string }>).map((r) => [r.key, JSON.parse(r.json) as unknown]));
  if (!meta.has('format')) return undefined;
  const json: Record<string, unknown> = Object.fromEntries(meta);
  for (const f of FAMILIES) {
    const hashes = written.get(f.table) as Map<string, string>;
    const out: unknown[] = [];
    for (const r of db.prepare(`SELECT key, json FROM ${f.table}`).iterate() as IterableIterator<{ key: string; json: string }>) {
      hashes.set(r.key, digest(r.json));
      out.push(f.pairs ? [r.key, JSON.parse(r.json)] : JSON.parse(r.json));
    }
    json[f.field] = out;
  }
  try {
    return deserializeState(json as unknown as SimStateJson);
  } catch (err) {
    throw new ZvmError('INTERNAL', `simulator database ${db.name} is not a state this version can read (${(err as Error).message}); restore it from a backup or move it aside`, { cause: err });
  }
}

/** Replaces the state's maps by tracked ones (same contents). */
function track(state: SimState): SimState {
  for (const f of FAMILIES) (state as unknown as Record<string, unknown>)[f.field] = new TrackedMap(mapOf(state, f));
  state.volumes = new TrackedMap(state.volumes);
  return state;
}

function writeAll(db: Db, state: SimState, written: Written): void {
  db.transaction(() => {
    for (const f of FAMILIES) void writeRows(db, f, state, 'all', written);
    writeMeta(db, state);
  });
}

function writeMeta(db: Db, state: SimState): void {
  const put = db.prepare('INSERT INTO sim_meta (key, json) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json WHERE json <> excluded.json');
  for (const [key, value] of metaRows(state)) put.run(key, JSON.stringify(value));
}

/** Writes the touched rows of one family that differ from what was last written; removes the deleted ones. */
function writeRows(db: Db, f: Family, state: SimState, touched: Set<string> | 'all', written: Written): number {
  const map = mapOf(state, f);
  const hashes = written.get(f.table) as Map<string, string>;
  const put = db.prepare(`INSERT INTO ${f.table} (key, json) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json`);
  const remove = db.prepare(`DELETE FROM ${f.table} WHERE key = ?`);
  const keys = touched === 'all' ? new Set([...map.keys(), ...hashes.keys()]) : touched;
  let count = 0;
  for (const key of keys) {
    const value = peek(map, key);
    if (value === undefined) {
      if (hashes.delete(key)) count += Number(remove.run(key).changes);
      continue;
    }
    const json = JSON.stringify(f.toJson(value as never));
    const hash = digest(json);
    if (hashes.get(key) === hash) continue;
    count += Number(put.run(key, json).changes);
    hashes.set(key, hash);
  }
  return count;
}

/** What the calls since the last commit touched, per family; a touched volume touches its pool. */
function takeTouched(state: SimState): Map<Family, Set<string> | 'all'> {
  const out = new Map<Family, Set<string> | 'all'>(FAMILIES.map((f) => [f, mapOf(state, f).take()]));
  const volumes = (state.volumes as TrackedMap<string, unknown>).take();
  const pools = out.get(POOLS);
  if (volumes === 'all') out.set(POOLS, 'all');
  else if (pools !== 'all' && pools) {
    for (const volser of volumes) {
      const volume = peek(state.volumes, volser) as { pool: string } | undefined;
      if (volume) pools.add(volume.pool);
    }
  }
  return out;
}

function forgetTouched(state: SimState): void {
  for (const f of FAMILIES) mapOf(state, f).forget();
  (state.volumes as TrackedMap<string, unknown>).forget();
}

/** After a failed commit: what the database really holds, so that the next commit rewrites the rest. */
function reloadDigests(db: Db, written: Written): void {
  for (const f of FAMILIES) {
    const hashes = new Map<string, string>();
    for (const r of db.prepare(`SELECT key, json FROM ${f.table}`).iterate() as IterableIterator<{ key: string; json: string }>) hashes.set(r.key, digest(r.json));
    written.set(f.table, hashes);
  }
}

function createSqlitePersister(db: Db, state: SimState, written: Written, log: Logger, counter: { rows: number }): Persister {
  // the first commit also saves what the host set up at start (pools, profiles from its configuration)
  let dirty = true;
  /** after a failed commit every row is compared again */
  let recheckAll = false;
  let batch: Promise<void> | undefined;

  function flush(): void {
    batch = undefined;
    if (!dirty) return;
    dirty = false;
    const touched = takeTouched(state);
    const all = recheckAll;
    recheckAll = false;
    try {
      db.transaction(() => {
        for (const [family, keys] of touched) counter.rows += writeRows(db, family, state, all ? 'all' : keys, written);
        writeMeta(db, state);
      });
    } catch (err) {
      dirty = true;
      recheckAll = true;
      reloadDigests(db, written);
      throw err;
    }
  }

  return {
    markDirty() {
      dirty = true;
    },
    beginCall() {
      // what earlier read-only calls touched is no change; while one is waiting, keep everything
      if (!dirty) forgetTouched(state);
    },
    close() {
      db.close();
    },
    commit() {
      if (!dirty && !batch) return Promise.resolve();
      batch ??= new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          try {
            flush();
            resolve();
          } catch (err) {
            log.error({ err }, 'simulator state commit failed');
            reject(new ZvmError('UNAVAILABLE', 'the simulated host could not save its state', { cause: err }));
          }
        });
      });
      return batch;
    },
  };
}
