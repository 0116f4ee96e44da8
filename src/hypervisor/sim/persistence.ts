/**
 * The simulator's state as JSON, written atomically (temp file + rename) and coalesced: a
 * mutating call marks the state dirty and one write follows within `delayMs`; flush() writes now.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { InvalidInputError } from '../../errors.js';
import type { SimPoolType } from './config.js';
import type { ActiveDisk, ActiveNic, DirEntry, Extent, ReaderFile, SimState, Vswitch, VswitchGrant } from './state.js';
import { emptyState } from './state.js';

export const STATE_FORMAT_VERSION = 1;

type RunningJson = Omit<SimState['running'] extends Map<string, infer R> ? R : never, 'disks' | 'nics' | 'dedicates'> & {
  disks: ActiveDisk[];
  nics: ActiveNic[];
  dedicates: [string, string][];
};
type VswitchJson = Omit<Vswitch, 'grants'> & { grants: VswitchGrant[] };

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

export function serializeState(s: SimState): SimStateJson {
  return {
    format: STATE_FORMAT_VERSION,
    seq: s.seq,
    nextMac: s.nextMac,
    entries: [...s.entries.values()],
    locks: [...s.locks],
    profiles: [...s.profiles],
    pools: [...s.pools.values()].map((p) => ({
      name: p.name,
      type: p.type,
      volumes: p.volumes.map((v) => ({ volser: v.volser, size: v.size, rdev: v.rdev, extents: v.extents })),
    })),
    running: [...s.running.values()].map((r) => ({
      ...r,
      disks: [...r.disks.values()],
      nics: [...r.nics.values()],
      dedicates: [...r.dedicates.entries()],
    })),
    vswitches: [...s.vswitches.values()].map((v) => ({ ...v, grants: [...v.grants.values()] })),
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

/** The saved state, or undefined when the file does not exist. */
export function loadStateFile(path: string): SimState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return deserializeState(JSON.parse(text) as SimStateJson);
}

export async function writeStateFile(path: string, state: SimState): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(serializeState(state)));
  await rename(tmp, path);
}

export interface Persister {
  markDirty(): void;
  flush(): Promise<void>;
}

/** Coalesces writes; at most one write runs at a time and a write is never lost. */
export function createPersister(deps: {
  path?: string;
  delayMs: number;
  state: () => SimState;
  /** a background write failed (the state stays dirty; the next flush retries and throws) */
  onError?: (err: unknown) => void;
}): Persister {
  let dirty = false;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const path = deps.path;
    if (!path) return;
    // chain behind any running write so that the newest state lands last; an earlier failure
    // was already reported to its own caller
    writing = writing
      .catch(() => undefined)
      .then(async () => {
        if (!dirty) return;
        dirty = false;
        try {
          await writeStateFile(path, deps.state());
        } catch (err) {
          dirty = true;
          throw err;
        }
      });
    await writing;
  };

  return {
    markDirty() {
      if (!deps.path) return;
      dirty = true;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        flush().catch((err: unknown) => deps.onError?.(err));
      }, deps.delayMs);
      timer.unref();
    },
    flush,
  };
}
