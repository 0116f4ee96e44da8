/**
 * Minidisk pools (DirMaint groups): volumes with capacity and allocated extents. AUTOG allocates
 * one contiguous extent on a single volume (docs/smapi.md §5.4); freed extents return.
 */
import type { SimConfig, SimPoolType } from './config.js';
import type { Extent, Pool, SimState, Volume } from './state.js';

/** Cylinder 0 (and block 0) hold the volume label; allocations start at 1. */
export const FIRST_USABLE = 1;

/** The device type text of a pool's volumes in MDISK statements and query records. */
export function mdiskDeviceType(type: SimPoolType): string {
  return type === 'ECKD' ? '3390' : 'FB-512';
}

/** The device type of query records (feilong and parsePoolSpace read 3390 as cylinders). */
export function recordDeviceType(type: SimPoolType): string {
  return type === 'ECKD' ? '3390' : '9336';
}

/** Adds the configured pools that the state does not have yet (a loaded state keeps its own). */
export function installPools(state: SimState, pools: SimConfig['pools']): void {
  let rdev = 0x2000 + state.volumes.size;
  for (const pc of pools) {
    const name = pc.name.toUpperCase();
    let pool = state.pools.get(name);
    if (!pool) {
      pool = { name, type: pc.type, volumes: [] };
      state.pools.set(name, pool);
    }
    for (const vc of pc.volumes) {
      const volser = vc.volser.toUpperCase();
      if (state.volumes.has(volser)) continue;
      const size = (pc.type === 'ECKD' ? vc.cylinders : vc.blocks) ?? 0;
      const vol: Volume = {
        volser,
        pool: name,
        type: pc.type,
        size,
        rdev: (vc.rdev ?? (rdev++).toString(16)).toUpperCase().padStart(4, '0'),
        extents: [],
      };
      pool.volumes.push(vol);
      state.volumes.set(volser, vol);
    }
  }
}

/** Start of the first gap of at least `size` units on a volume, or undefined. */
function firstFit(vol: Volume, size: number): number | undefined {
  let cursor = FIRST_USABLE;
  for (const e of vol.extents) {
    if (e.start - cursor >= size) return cursor;
    cursor = Math.max(cursor, e.start + e.size);
  }
  return vol.size - cursor >= size ? cursor : undefined;
}

function insertExtent(vol: Volume, extent: Extent): void {
  let i = vol.extents.length;
  while (i > 0 && vol.extents[i - 1].start > extent.start) i--;
  vol.extents.splice(i, 0, extent);
}

/** Allocates on one volume; undefined when no gap is large enough. */
export function allocateOnVolume(vol: Volume, size: number, owner: string, vdev: string): Extent | undefined {
  const start = firstFit(vol, size);
  if (start === undefined) return undefined;
  const extent = { start, size, owner, vdev };
  insertExtent(vol, extent);
  return extent;
}

/** AUTOG: the first volume of the group (in definition order) with a large enough gap. */
export function allocateInPool(pool: Pool, size: number, owner: string, vdev: string): { vol: Volume; extent: Extent } | undefined {
  for (const vol of pool.volumes) {
    const extent = allocateOnVolume(vol, size, owner, vdev);
    if (extent) return { vol, extent };
  }
  return undefined;
}

/** Claims an explicit extent (Image_Replace_DM naming a pool volume); false when it overlaps. */
export function claimExtent(vol: Volume, start: number, size: number, owner: string, vdev: string): boolean {
  if (start < FIRST_USABLE || start + size > vol.size) return false;
  for (const e of vol.extents) {
    if (start < e.start + e.size && e.start < start + size) return false;
  }
  insertExtent(vol, { start, size, owner, vdev });
  return true;
}

/** Returns an extent to its volume; unknown volumes (not pool-managed) are ignored. */
export function freeExtent(state: SimState, volser: string, start: number, owner: string): void {
  const vol = state.volumes.get(volser);
  if (!vol) return;
  const i = vol.extents.findIndex((e) => e.start === start && e.owner === owner);
  if (i >= 0) vol.extents.splice(i, 1);
}

/** Free gaps of a volume as [start, size] pairs. */
export function freeExtents(vol: Volume): [number, number][] {
  const out: [number, number][] = [];
  let cursor = FIRST_USABLE;
  for (const e of vol.extents) {
    if (e.start > cursor) out.push([cursor, e.start - cursor]);
    cursor = Math.max(cursor, e.start + e.size);
  }
  if (vol.size > cursor) out.push([cursor, vol.size - cursor]);
  return out;
}
