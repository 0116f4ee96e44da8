/**
 * The phases of a volume attach and detach (docs/rest-interface.md §3.13 last bullet), each with its
 * undo: the connection bookkeeping in the FCP ledger, then dedicating the FCPs to the guest.
 * Every step is idempotent per volume, so a crash at any point and a rerun converge.
 */
import type { ZFcpTemplate, ZVolume } from '../../api/index.js';
import { NotFoundError } from '../../errors.js';
import type { FcpOps } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';
import { computeConnect, computeDisconnect, findTemplateOf, updateLedger } from '../kit/fcp-ledger/index.js';

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

/** Attach runs once per generation: a generation that ended Attached or Failed waits for a spec change. */
export const isSettled = (v: ZVolume) => v.status?.observedGeneration === v.metadata.generation && (v.status?.phase === 'Attached' || v.status?.phase === 'Failed');

export const volumeKey = (v: ZVolume) => `${v.metadata.namespace ?? ''}/${v.metadata.name}`;
const lower = (fcps: readonly string[]) => fcps.map((f) => f.toLowerCase());

/** FCPs grouped by the template whose ledger lists them. */
async function templatesOf(ctx: PhaseContext, v: ZVolume): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const fcp of lower(v.spec.fcps)) {
    const t: ZFcpTemplate | undefined = await findTemplateOf(ctx.store, fcp, v.spec.fcpTemplateId);
    if (!t) throw new FcpNotFoundError(fcp);
    out.set(t.metadata.name, [...(out.get(t.metadata.name) ?? []), fcp]);
  }
  return out;
}

interface ConnectionChange {
  /** each FCP's connection count after the change */
  counts: Map<string, number>;
  /** FCPs that were free (unreserved, no assigner) before a connect */
  wereFree: string[];
}

/** Adds (or removes) this volume's connection on every FCP. */
async function changeConnections(ctx: PhaseContext, v: ZVolume, connect: boolean): Promise<ConnectionChange> {
  const counts = new Map<string, number>();
  const wereFree: string[] = [];
  for (const [templateId, fcps] of await templatesOf(ctx, v)) {
    const { before, after } = await updateLedger(ctx.store, templateId, (rows) => {
      const next = connect ? computeConnect(rows, fcps, v.spec.assignerId.toUpperCase(), volumeKey(v)) : computeDisconnect(rows, fcps, volumeKey(v));
      return { rows: next, value: { before: rows, after: next } };
    });
    for (const r of after) if (fcps.includes(r.fcp)) counts.set(r.fcp, r.connections);
    for (const r of before) if (fcps.includes(r.fcp) && r.reserved === 0 && r.assignerId === '' && r.connections === 0) wereFree.push(r.fcp);
  }
  return { counts, wereFree };
}

/** Undoes a connect: the connections go, and FCPs that were free before are free again. */
async function undoConnect(ctx: PhaseContext, v: ZVolume, wereFree: string[]): Promise<void> {
  await changeConnections(ctx, v, false);
  for (const [templateId, fcps] of await templatesOf(ctx, v)) {
    const free = fcps.filter((f) => wereFree.includes(f));
    if (free.length === 0) continue;
    await updateLedger(ctx.store, templateId, (rows) => ({
      rows: rows.map((r) => (free.includes(r.fcp) && r.connections === 0 ? { ...r, reserved: 0, assignerId: '' } : r)),
      value: undefined,
    }));
  }
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

/** Returns the FCPs this attach dedicated. On failure undoes what was done when doRollback (default true). */
export async function applyAttach(ctx: PhaseContext, v: ZVolume): Promise<{ fcp: string; dedicated: boolean }[]> {
  const undo: Undo[] = [];
  const userid = v.spec.assignerId.toUpperCase();
  try {
    const { counts, wereFree } = await changeConnections(ctx, v, true);
    undo.push(() => undoConnect(ctx, v, wereFree));
    const dedicated: string[] = [];
    if (!v.spec.isRootVolume) {
      for (const fcp of lower(v.spec.fcps)) {
        if (counts.get(fcp) !== 1) continue; // another volume already holds the FCP, so it is dedicated
        await ctx.fcp.dedicate(userid, fcp, { signal: ctx.signal });
        dedicated.push(fcp);
        undo.push(() => ctx.fcp.undedicate(userid, fcp, { signal: ctx.signal }));
      }
    }
    // the guest OS side (SCSI device, multipath, mount point) needs an in-guest agent: nothing to do here
    return lower(v.spec.fcps).map((fcp) => ({ fcp, dedicated: dedicated.includes(fcp) }));
  } catch (err) {
    if (v.spec.doRollback !== false) await rollback(ctx, undo);
    throw err;
  }
}

/** Gives the connections back and undedicates FCPs left without any, unless updateConnectionsOnly. */
export async function applyDetach(ctx: PhaseContext, v: ZVolume): Promise<void> {
  const undo: Undo[] = [];
  const userid = v.spec.assignerId.toUpperCase();
  try {
    const { counts } = await changeConnections(ctx, v, false);
    undo.push(async () => void (await changeConnections(ctx, v, true)));
    if (v.spec.isRootVolume || v.spec.updateConnectionsOnly) return;
    for (const fcp of lower(v.spec.fcps)) {
      if ((counts.get(fcp) ?? 0) > 0) continue;
      await ctx.fcp.undedicate(userid, fcp, { signal: ctx.signal });
      undo.push(() => ctx.fcp.dedicate(userid, fcp, { signal: ctx.signal }));
    }
  } catch (err) {
    if (err instanceof FcpNotFoundError) return; // nothing of ours can be left on an FCP no template lists
    if (v.spec.doRollback !== false) await rollback(ctx, undo);
    throw err;
  }
}
