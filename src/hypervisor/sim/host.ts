/**
 * The simulated z/VM host: answers decoded SMAPI requests in-process (SmapiHandler), keeps its
 * state in maps keyed by userid/volser/switch so every call is O(1)/O(small), and persists it:
 * with a state file no answer leaves before the state it reflects is on disk (persistence.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isZvmError } from '../../errors.js';
import type { SmapiHandler, SmapiRequest, SmapiResponse } from '../smapi/types.js';
import { resolveSimConfig } from './config.js';
import type { ResolvedSimConfig, SimConfig } from './config.js';
import type { SimContext } from './context.js';
import { installPools } from './disk-pools.js';
import { SimFault } from './fault.js';
import { handlers } from './handlers/index.js';
import { checkUserid, Params } from './params.js';
import { createPersister, loadStateFile, serializeState } from './persistence.js';
import { isSqliteStatePath, openSqliteSimState } from './sqlite-state.js';
import type { SimStateJson } from './persistence.js';
import { settle } from './power.js';
import { appendConsole, consoleText, punchToReader, readerFiles, receiveReaderFile, type PunchedFile } from './spool.js';
import { mdisksOf } from './directory-store.js';
import type { DirectoryDisk } from '../port.js';
import { emptyState, type ReaderFile } from './state.js';

/** Power state as CP's QUERY USER sees it; 'logoff-pending' answers HCPCQU361E. */
export type SimPowerState = 'on' | 'off' | 'paused' | 'logoff-pending';

export interface SimStats {
  calls: number;
  guests: number;
  running: number;
  vswitches: number;
  pools: { name: string; type: string; totalUnits: number; usedUnits: number }[];
}

export interface SimHost extends SmapiHandler {
  readonly config: ResolvedSimConfig;
  /**
   * Resolves once every change made so far is on disk (at once without statePath or when nothing
   * changed). handle() does it before answering; callers of the synchronous methods below that
   * change state (appendConsole, receiveReaderFile) await it before they report success.
   */
  commit(): Promise<void>;
  /** Commits; further calls are still answered but no longer persisted. */
  close(): Promise<void>;
  stats(): SimStats;
  /** Calls per SMAPI function name since creation (or the last reset). */
  callCounts(): Record<string, number>;
  resetCallCounts(): void;
  /**
   * CP QUERY USER for the management-guest emulation (vmcp): undefined when the userid is not
   * in the directory. Counts as one tick of the virtual clock, so polling it ends a pending logoff.
   */
  queryUser(userid: string): SimPowerState | undefined;
  /** The console spool text of a guest (what Image_Console_Get returns), if any. */
  consoleOf(userid: string): string | undefined;
  /** The whole state as JSON (what the state file holds); for tests and debugging. */
  snapshot(): SimStateJson;
  /** A minidisk as the directory defines it (what the management guest's LINK finds), if any. */
  minidisk(userid: string, vdev: string): DirectoryDisk | undefined;
  /** Appends lines to a guest's console spool (what the management guest's tools leave there). */
  appendConsole(userid: string, ...lines: string[]): void;
  /** The spool files in a userid's virtual reader, oldest first (what `vmur list` shows). */
  readerFiles(owner: string): ReaderFile[];
  /** Removes a file from a userid's reader and returns it (`vmur receive`); undefined if absent. */
  receiveReaderFile(owner: string, spoolId: number): ReaderFile | undefined;
  /** A file punched to `owner`'s reader (the management guest's `vmur punch -r -u <owner>`). */
  punchToReader(owner: string, file: PunchedFile): ReaderFile;
  /**
   * Calls `listener` with the minidisks a call removed from a userid's directory entry (the entry
   * deleted, a disk deleted, or redefined on other space) before that call is answered, so that
   * what was kept of their contents goes with them. Returns the unsubscribe function.
   */
  onMinidisksGone(listener: MinidisksGoneListener): () => void;
}

export type MinidisksGoneListener = (userid: string, gone: DirectoryDisk[]) => Promise<void>;

/** The disks of `before` that `after` no longer has at the same place. */
function goneDisks(before: ReadonlyMap<string, DirectoryDisk>, after: ReadonlyMap<string, DirectoryDisk>): DirectoryDisk[] {
  return [...before.values()].filter((d) => {
    const now = after.get(d.vdev);
    return !now || now.volser !== d.volser || now.start !== d.start;
  });
}

function fault(fn: string, rc: number, rs: number): SmapiResponse {
  return { rc, rs, output: {} };
}

export function createSimHost(config: Partial<SimConfig> = {}): SimHost {
  const cfg = resolveSimConfig(config);
  // a path ending in .db keeps the state in SQLite, one row per entry (sqlite-state.ts)
  const database = isSqliteStatePath(cfg.statePath) ? openSqliteSimState(cfg.statePath) : undefined;
  const state = database?.state ?? (cfg.statePath ? loadStateFile(cfg.statePath) : undefined) ?? emptyState();
  installPools(state, cfg.pools);
  for (const p of cfg.profiles) state.profiles.add(p);
  const ctx: SimContext = { state, config: cfg };
  const persister = database?.persister ?? createPersister({ path: cfg.statePath, state: () => state });
  let counts = new Map<string, number>();
  let closed = false;
  const goneListeners = new Set<MinidisksGoneListener>();

  const disksOf = (userid: string): ReadonlyMap<string, DirectoryDisk> => {
    const entry = state.entries.get(userid);
    return entry ? mdisksOf(entry.statements) : new Map();
  };

  /** Runs the call; when someone keeps disk contents, tells them which minidisks it removed. */
  async function dispatchTracked(req: SmapiRequest): Promise<SmapiResponse> {
    if (goneListeners.size === 0 || !handlers.get(req.fn)?.mutates) return dispatch(req);
    const userid = (req.target ?? '').trim().toUpperCase();
    const before = disksOf(userid);
    const reply = dispatch(req);
    const gone = before.size > 0 ? goneDisks(before, disksOf(userid)) : [];
    if (gone.length > 0) await Promise.all([...goneListeners].map((l) => l(userid, gone)));
    return reply;
  }

  function dispatch(req: SmapiRequest): SmapiResponse {
    const spec = handlers.get(req.fn);
    if (!spec) return fault(req.fn, 900, 12);
    persister.beginCall?.();
    try {
      const rawTarget = (req.target ?? '').trim().toUpperCase();
      const target = spec.target === 'user' ? checkUserid(req.fn, rawTarget) : rawTarget;
      const reply = spec.handler(ctx, target, new Params(req.fn, req.params ?? {})) ?? {};
      if (spec.mutates) markDirty();
      return { rc: reply.rc ?? 0, rs: reply.rs ?? 0, output: reply.output ?? {} };
    } catch (err) {
      if (err instanceof SimFault) {
        // some faults happen after a partial, intended change (e.g. IMMED during a pending logoff)
        if (spec.mutates) markDirty();
        return { rc: err.rc, rs: err.rs, output: err.output };
      }
      if (isZvmError(err) && err.code === 'INVALID_INPUT') return fault(req.fn, 24, 0);
      throw err;
    }
  }

  function markDirty(): void {
    if (!closed) persister.markDirty();
  }

  return {
    config: cfg,
    async handle(req: SmapiRequest): Promise<SmapiResponse> {
      if (cfg.latencyMs > 0) await sleep(cfg.latencyMs);
      state.seq++;
      counts.set(req.fn, (counts.get(req.fn) ?? 0) + 1);
      const reply = await dispatchTracked(req);
      // also for queries: their answer may show a change of another call whose write is in flight
      await persister.commit();
      return reply;
    },
    commit() {
      return persister.commit();
    },
    async close() {
      if (closed) return;
      await persister.commit();
      closed = true;
      persister.close?.();
    },
    stats() {
      return {
        calls: state.seq,
        guests: state.entries.size,
        running: state.running.size,
        vswitches: state.vswitches.size,
        pools: [...state.pools.values()].map((p) => ({
          name: p.name,
          type: p.type,
          totalUnits: p.volumes.reduce((n, v) => n + v.size - 1, 0),
          usedUnits: p.volumes.reduce((n, v) => n + v.extents.reduce((m, e) => m + e.size, 0), 0),
        })),
      };
    },
    callCounts() {
      return Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
    },
    resetCallCounts() {
      counts = new Map();
    },
    queryUser(userid) {
      const u = userid.trim().toUpperCase();
      if (!state.entries.has(u)) return undefined;
      state.seq++;
      const r = settle(ctx, u);
      if (!r) return 'off';
      if (r.logoffAtSeq !== undefined) return 'logoff-pending';
      return r.paused ? 'paused' : 'on';
    },
    consoleOf(userid) {
      return consoleText(ctx, userid.trim().toUpperCase());
    },
    snapshot() {
      return structuredClone(serializeState(state));
    },
    minidisk(userid, vdev) {
      const entry = state.entries.get(userid.trim().toUpperCase());
      return entry ? mdisksOf(entry.statements).get(vdev.toUpperCase().padStart(4, '0')) : undefined;
    },
    appendConsole(userid, ...lines) {
      appendConsole(ctx, userid.trim().toUpperCase(), ...lines);
      markDirty();
    },
    readerFiles(owner) {
      return readerFiles(ctx, owner.trim().toUpperCase());
    },
    punchToReader(owner, file) {
      const punched = punchToReader(ctx, owner.trim().toUpperCase(), file);
      markDirty();
      return punched;
    },
    receiveReaderFile(owner, spoolId) {
      const file = receiveReaderFile(ctx, owner.trim().toUpperCase(), spoolId);
      if (file) markDirty();
      return file;
    },
    onMinidisksGone(listener) {
      goneListeners.add(listener);
      return () => goneListeners.delete(listener);
    },
  };
}
