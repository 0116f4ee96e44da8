/**
 * The phases of a volume attach and detach (docs/rest-interface.md §3.13 last bullet). The volume's FCP
 * connections are its own status (status.connections); the ZFcpTemplate reconciler counts them in its
 * ledger, and the volume reads the ledger back before it dedicates (the first connection of an FCP does)
 * or undedicates (an FCP left without any). Every step is idempotent, so a crash and a rerun converge.
 */
import type { FcpUsage, ZFcpTemplate, ZVolume, ZVolumeStatus } from '../../api/index.js';
import { NotFoundError } from '../../errors.js';
import type { FcpOps } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';
import { connectionsBefore, findTemplateOf } from '../kit/fcp-ledger/index.js';

export interface PhaseContext {
  store: StateStore;
  fcp: FcpOps;
  log: Logger;
  signal: AbortSignal;
}

/** Raised when a spec names an FCP that no template lists (feilong: notExist, modID 30). */
export class FcpNotFoundError extends NotFoundError {
  constructor(readonly fcp: string) {
    super(`FCP '${fcp}' does not exist.`);
  }
}

export type Connections = NonNullable<ZVolumeStatus['connections']>;

/** Attach runs once per generation: a generation that ended Attached or Failed waits for a spec change. */
export const isSettled = (v: ZVolume) => v.status?.observedGeneration === v.metadata.generation && (v.status?.phase === 'Attached' || v.status?.phase === 'Failed');

export const volumeKey = (v: ZVolume) => `${v.metadata.namespace ?? ''}/${v.metadata.name}`;
const lower = (fcps: readonly string[]) => fcps.map((f) => f.toLowerCase());

/** The ledger row of each FCP of the volume, from the template whose ledger lists it. */
export interface LedgerView {
  connections: Connections;
  rows: Map<string, FcpUsage>;
}

/** Each FCP with the template whose ledger lists it (the spec's template first). */
export async function readLedgerView(ctx: Pick<PhaseContext, 'store'>, v: ZVolume): Promise<LedgerView> {
  const connections: Connections = [];
  const rows = new Map<string, FcpUsage>();
  for (const fcp of lower(v.spec.fcps)) {
    const t: ZFcpTemplate | undefined = await findTemplateOf(ctx.store, fcp, v.spec.fcpTemplateId);
    const row = t?.status?.fcps?.find((r) => r.fcp === fcp);
    if (!t || !row) throw new FcpNotFoundError(fcp);
    connections.push({ fcp, template: t.metadata.name });
    rows.set(fcp, row);
  }
  return { connections, rows };
}

/** What the volume holds now: status.connections, or (attached by an earlier release) its status.fcps. */
export function heldConnections(v: ZVolume): Connections | { fcp: string }[] {
  if (v.status?.connections) return v.status.connections;
  return v.status?.phase === 'Attached' || v.status?.phase === 'Failed' ? v.status.fcps ?? [] : [];
}

export const sameConnections = (a: Connections | undefined, b: Connections) => JSON.stringify(a ?? []) === JSON.stringify(b);

/** The ledger counts the volume on every FCP (present) or on none (absent). */
export function ledgerShows(view: LedgerView, v: ZVolume, present: boolean): boolean {
  return [...view.rows.values()].every((r) => (r.volumes ?? []).includes(volumeKey(v)) === present);
}

/** Pure: the FCPs this attach dedicates, in spec order: those whose first connection is the volume's and not dedicated by it yet. */
export function planDedications(v: ZVolume, view: LedgerView): string[] {
  if (v.spec.isRootVolume) return [];
  const done = new Set((v.status?.fcps ?? []).filter((f) => f.dedicated).map((f) => f.fcp));
  return lower(v.spec.fcps).filter((fcp) => !done.has(fcp) && connectionsBefore(view.rows.get(fcp)!, volumeKey(v)) === 0);
}

/** Pure: the FCPs this detach undedicates: those the ledger shows without any connection, unless the spec says not to. */
export function planUndedications(v: ZVolume, view: LedgerView): string[] {
  if (v.spec.isRootVolume || v.spec.updateConnectionsOnly) return [];
  return lower(v.spec.fcps).filter((fcp) => (view.rows.get(fcp)?.connections ?? 0) === 0);
}

type Undo = () => Promise<void>;

async function rollback(ctx: PhaseContext, undo: Undo[]): Promise<void> {
  for (const step of undo.reverse()) {
    try {
      await step();
    } catch (err) {
      // the original failure is what the user sees; a failed undo is logged for a person to finish
      ctx.log.warn({ err }, 'rollback step failed');
    }
  }
}

/** Dedicates the FCPs to the guest; on a failure undoes the ones done when doRollback (default true). */
export async function applyDedications(ctx: PhaseContext, v: ZVolume, fcps: readonly string[]): Promise<void> {
  const userid = v.spec.assignerId.toUpperCase();
  const undo: Undo[] = [];
  try {
    for (const fcp of fcps) {
      await ctx.fcp.dedicate(userid, fcp, { signal: ctx.signal });
      undo.push(() => ctx.fcp.undedicate(userid, fcp, { signal: ctx.signal }));
    }
    // the guest OS side (SCSI device, multipath, mount point) needs an in-guest agent: nothing to do here
  } catch (err) {
    if (v.spec.doRollback !== false) await rollback(ctx, undo);
    throw err;
  }
}

/** Undedicates the FCPs from the guest; on a failure dedicates again the ones done when doRollback. */
export async function applyUndedications(ctx: PhaseContext, v: ZVolume, fcps: readonly string[]): Promise<void> {
  const userid = v.spec.assignerId.toUpperCase();
  const undo: Undo[] = [];
  try {
    for (const fcp of fcps) {
      await ctx.fcp.undedicate(userid, fcp, { signal: ctx.signal });
      undo.push(() => ctx.fcp.dedicate(userid, fcp, { signal: ctx.signal }));
    }
  } catch (err) {
    if (v.spec.doRollback !== false) await rollback(ctx, undo);
    throw err;
  }
}

/** Pure: the view as the ledger will show it once it counts the volume (present) or no longer does: what a plan assumes. */
export function expectedView(view: LedgerView, v: ZVolume, present: boolean): LedgerView {
  const key = volumeKey(v);
  const rows = new Map([...view.rows].map(([fcp, r]) => {
    const listed = (r.volumes ?? []).includes(key);
    if (listed === present) return [fcp, r];
    const volumes = present ? [...(r.volumes ?? []), key] : (r.volumes ?? []).filter((x) => x !== key);
    return [fcp, { ...r, volumes, connections: Math.max(0, r.connections + (present ? 1 : -1)) }];
  }));
  return { connections: view.connections, rows };
}
