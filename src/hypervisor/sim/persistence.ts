/**
 * The simulator's state as JSON, written durably (src/durable: temp file, fsync, rename, fsync of the
 * directory) before any answer that depends on it is sent; see Persister for the contract.
 */
import { createGroupCommit, damagedStateError, loadJsonState, writeFileDurably } from '../../durable/index.js';
import { InvalidInputError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import type { SimPoolType } from './config.js';
import type { ActiveDisk, ActiveNic, DirEntry, Extent, Pool, ReaderFile, Running, SimState, Vswitch, VswitchGrant } from './state.js';
import { emptyState } from './state.js';

export const STATE_FORMAT_VERSION = 1;

export type RunningJson = Omit<SimState['running'] extends Map<string, infer R> ? R : never, 'disks' | 'nics' | 'dedicates'> & {
  disks: ActiveDisk[];
  nics: ActiveNic[];
  dedicates: [string, string][];
};
export type VswitchJson = Omit<Vswitch, 'grants'> & { grants: VswitchGrant[] };

export interface SimStateJson {
  format: number;
  seq: number;
  nextMac: number;
  entries: DirEntry[];
  locks: string[];
  profiles: string[];
  pools: { name: string; type: SimPoolType; volumes: { volser: string; size: number; rdev: string; extents: Extent[] }[] }[];
  running: RunningJson[];
  vswitches: VswitchJson[];
  consoles: [string, string[]][];
  /** absent in state written before console spool files were modelled: every line is unclosed */
  consoleUnclosed?: [string, number][];
  readers?: [string, ReaderFile[]][];
  nextSpoolId?: number;
}

type PoolJson = SimStateJson['pools'][number];

/** One pool as saved: its volumes with their allocated extents (the minidisks' space). */
export function poolJson(p: Pool): PoolJson {
  return { name: p.name, type: p.type, volumes: p.volumes.map((v) => ({ volser: v.volser, size: v.size, rdev: v.rdev, extents: v.extents })) };
}

/** One logged-on guest as saved: its active disks, NICs and dedicated devices as lists. */
export function runningJson(r: Running): RunningJson {
  return { ...r, disks: [...r.disks.values()], nics: [...r.nics.values()], dedicates: [...r.dedicates.entries()] };
}

export function vswitchJson(v: Vswitch): VswitchJson {
  return { ...v, grants: [...v.grants.values()] };
}

export function serializeState(s: SimState): SimStateJson {
  return {
    format: STATE_FORMAT_VERSION,
    seq: s.seq,
    nextMac: s.nextMac,
    entries: [...s.entries.values()],
    locks: [...s.locks],
    profiles: [...s.profiles],
    pools: [...s.pools.values()].map(poolJson),
    running: [...s.running.values()].map(runningJson),
    vswitches: [...s.vswitches.values()].map(vswitchJson),
    consoles: [...s.consoles.entries()],
    consoleUnclosed: [...s.consoleUnclosed.entries()],
    readers: [...s.readers.entries()],
    nextSpoolId: s.nextSpoolId,
  };
}

export function deserializeState(j: SimStateJson): SimState {
  if (j.format !== STATE_FORMAT_VERSION) throw new InvalidInputError(`unsupported simulator state format ${j.format}`);
  const s = emptyState();
  s.seq = j.seq;
  s.nextMac = j.nextMac;
  for (const e of j.entries) s.entries.set(e.userid, { userid: e.userid, statements: [...e.statements] });
  for (const l of j.locks) s.locks.add(l);
  for (const p of j.profiles) s.profiles.add(p);
  for (const p of j.pools) {
    const pool = { name: p.name, type: p.type, volumes: [] as SimState['volumes'] extends Map<string, infer V> ? V[] : never };
    for (const v of p.volumes) {
      const vol = { volser: v.volser, pool: p.name, type: p.type, size: v.size, rdev: v.rdev, extents: v.extents.map((e) => ({ ...e })) };
      pool.volumes.push(vol);
      s.volumes.set(vol.volser, vol);
    }
    s.pools.set(pool.name, pool);
  }
  for (const r of j.running) {
    s.running.set(r.userid, {
      ...r,
      disks: new Map(r.disks.map((d) => [d.vdev, { ...d }])),
      nics: new Map(r.nics.map((n) => [n.vdev, { ...n }])),
      dedicates: new Map(r.dedicates),
    });
  }
  for (const v of j.vswitches) s.vswitches.set(v.name, { ...v, grants: new Map(v.grants.map((g) => [g.userid, { ...g }])) });
  for (const [userid, lines] of j.consoles) s.consoles.set(userid, [...lines]);
  const unclosed = j.consoleUnclosed ?? j.consoles.map(([userid, lines]): [string, number] => [userid, lines.length]);
  for (const [userid, n] of unclosed) s.consoleUnclosed.set(userid, n);
  for (const [owner, files] of j.readers ?? []) s.readers.set(owner, files.map((f) => ({ ...f, lines: [...f.lines] })));
  s.nextSpoolId = j.nextSpoolId ?? 1;
  return s;
}

/** The saved state, or undefined when the file does not exist; a damaged file stops the start, naming the file and the way out. */
export function loadStateFile(path: string, log: Logger = silentLogger()): SimState | undefined {
  const doc = loadJsonState(path, log);
  if (doc === undefined) return undefined;
  try {
    return deserializeState(doc as SimStateJson);
  } catch (err) {
    throw damagedStateError(path, `is not a simulator state this version can read (${(err as Error).message})`, err);
  }
}

export async function writeStateFile(path: string, state: SimState, log: Logger = silentLogger()): Promise<void> {
  await writeFileDurably(path, JSON.stringify(serializeState(state)), log);
}

/**
 * The simulator's durability contract: a mutating call marks the state changed, then awaits
 * commit() before its answer leaves; commit() resolves once a file write holding every change made
 * before the call is on disk (fsync'ed). Concurrent commits share one write (group commit); a call
 * that changed nothing while the state is clean pays nothing.
 */
export interface Persister {
  /** The in-memory state changed: the next commit must write it. */
  markDirty(): void;
  /**
   * Resolves once everything changed before this call is durable; rejects (UNAVAILABLE) when the write
   * failed. The change then stays in memory (a host cannot take back what it did) and reaches the file
   * with the next write that succeeds; the caller, told it failed, looks again as after any host error.
   */
  commit(): Promise<void>;
  /** A call is about to be handled (persisters that track what each call touches start afresh). */
  beginCall?(): void;
  /** Releases the state file (after a last commit). */
  close?(): void;
}

/** Without a path every commit resolves at once (the state lives in memory). */
export function createPersister(deps: { path?: string; state: () => SimState; log?: Logger }): Persister {
  const log = deps.log ?? silentLogger();
  const path = deps.path;
  /** bumped by every change; a write records the generation it captured once it is on disk. */
  let changed = 0;
  let durable = 0;
  const group = path
    ? createGroupCommit({
      log,
      async write() {
        const generation = changed;
        await writeStateFile(path, deps.state(), log);
        durable = generation;
      },
    })
    : undefined;

  return {
    markDirty() {
      changed += 1;
    },
    async commit() {
      if (!group || durable >= changed) return;
      await group.flush();
    },
  };
}
