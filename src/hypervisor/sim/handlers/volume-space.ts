/**
 * Image_Volume_Space_Query_DM: definitions (q1), free extents (q2) and used extents (q3) of
 * volumes (e1), regions (e2; every volume is a region of the same name) or groups (e3).
 */
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { freeExtents, recordDeviceType } from '../disk-pools.js';
import { SimFault } from '../fault.js';
import type { Volume } from '../state.js';

function namesOf(entryNames: string): string[] | '*' {
  const names = entryNames.toUpperCase().split(/\s+/).filter((n) => n !== '');
  return names.length === 0 || names.includes('*') ? '*' : names;
}

function selectVolumes(ctx: SimContext, fn: string, entryType: number, names: string[] | '*'): Volume[] {
  const { state } = ctx;
  if (entryType === 3) {
    const pools = names === '*' ? [...state.pools.values()] : names.map((n) => state.pools.get(n));
    return pools.flatMap((pool, i) => {
      if (!pool) throw new SimFault(fn, 420, 8, `group ${names[i]} not defined`);
      return pool.volumes;
    });
  }
  if (names === '*') return [...state.volumes.values()];
  return names.map((n) => {
    const vol = state.volumes.get(n);
    if (!vol) throw new SimFault(fn, 420, 8, `volume ${n} not defined`);
    return vol;
  });
}

function definitionRecords(ctx: SimContext, fn: string, entryType: number, names: string[] | '*'): string[] {
  if (entryType === 3) {
    const groups = names === '*' ? [...ctx.state.pools.keys()] : names;
    return groups.map((g) => {
      const pool = ctx.state.pools.get(g);
      if (!pool) throw new SimFault(fn, 420, 8, `group ${g} not defined`);
      return [pool.name, ...pool.volumes.map((v) => v.volser)].join(' ');
    });
  }
  return selectVolumes(ctx, fn, entryType, names).map((v) => `${v.volser} ${recordDeviceType(v.type)} ${v.size}`);
}

export const spaceHandlers: Record<string, HandlerSpec> = {
  Image_Volume_Space_Query_DM: spec((ctx, _target, p) => {
    const queryType = p.int('query_type', 2, { min: 1, max: 3 });
    const entryType = p.int('entry_type', 3, { min: 1, max: 3 });
    const names = namesOf(p.str('entry_names', 4, { max: 255 }));
    if (queryType === 1) return { output: { record_array: definitionRecords(ctx, p.fn, entryType, names) } };
    const records: string[] = [];
    for (const v of selectVolumes(ctx, p.fn, entryType, names)) {
      const type = recordDeviceType(v.type);
      if (queryType === 2) {
        for (const [start, size] of freeExtents(v)) records.push(`${v.volser} ${type} ${start} ${size} ${v.pool} ${v.volser}`);
      } else {
        for (const e of v.extents) records.push(`${v.volser} ${type} ${e.start} ${e.size} ${e.owner} ${e.vdev} * ${v.pool} ${v.volser}`);
      }
    }
    return { output: { record_array: records } };
  }, false, 'any'),
};
