/**
 * Keeps pool extents in step with whole-entry writes (Image_Create_DM, Image_Replace_DM,
 * Image_Delete_DM): an MDISK on a pool volume owns its extent.
 */
import { claimExtent, freeExtent } from './disk-pools.js';
import { mdisksOf } from './directory-store.js';
import { SimFault } from './fault.js';
import type { SimState } from './state.js';

/** Frees the pool extents of every MDISK of an entry. */
export function freeEntryDisks(state: SimState, userid: string, statements: readonly string[]): void {
  for (const d of mdisksOf(statements).values()) freeExtent(state, d.volser, d.start, userid);
}

/**
 * Claims the extents of the entry's MDISKs that lie on pool volumes; all or nothing. An extent
 * that overlaps another → 408/24 (the space is not free) [sim choice].
 */
export function claimEntryDisks(fn: string, state: SimState, userid: string, statements: readonly string[]): void {
  const claimed: { volser: string; start: number }[] = [];
  for (const d of mdisksOf(statements).values()) {
    const vol = state.volumes.get(d.volser);
    if (!vol) continue;
    if (!claimExtent(vol, d.start, d.size, userid, d.vdev)) {
      for (const c of claimed) freeExtent(state, c.volser, c.start, userid);
      throw new SimFault(fn, 408, 24, `extent ${d.volser} ${d.start} ${d.size} is not free`);
    }
    claimed.push({ volser: d.volser, start: d.start });
  }
}
