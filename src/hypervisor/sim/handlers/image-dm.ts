/** Directory entry functions: create, delete, query, lock, unlock, replace. */
import { formatRecord } from '../../directory/directory.js';
import { SYNC_OPERATION_ID } from '../../smapi/functions.js';
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { checkUnlocked, requireEntry, validateEntry } from '../directory-store.js';
import { claimEntryDisks, freeEntryDisks } from '../entry-disks.js';
import { SimFault } from '../fault.js';
import { settle } from '../power.js';
import { dropConsole } from '../spool.js';

function isLoggedOn(ctx: SimContext, userid: string): boolean {
  return settle(ctx, userid) !== undefined;
}

export const imageDmHandlers: Record<string, HandlerSpec> = {
  Image_Create_DM: spec((ctx, target, p) => {
    const fn = p.fn;
    const prototype = p.str('prototype_name', 2, { max: 8 });
    p.str('initial_password', 3, { max: 200 });
    p.str('initial_account_number', 4, { max: 8 });
    const records = p.list('image_record_array', 5);
    if (ctx.state.entries.has(target)) throw new SimFault(fn, 400, 8, `${target} is already defined`);
    if (records.length === 0) {
      if (prototype) throw new SimFault(fn, 400, 20, `prototype ${prototype} not found`);
      throw new SimFault(fn, 24, 524, 'no directory records given');
    }
    const statements = validateEntry(fn, ctx.state, target, records);
    claimEntryDisks(fn, ctx.state, target, statements);
    ctx.state.entries.set(target, { userid: target, statements });
    return { output: { operation_id: SYNC_OPERATION_ID } };
  }, true),

  /**
   * A logged-on (or logging-off) guest cannot be deleted: 596/6831 "delete not finished", which
   * feilong answers with a forced logoff and a second delete (docs/smapi.md §6.2).
   */
  Image_Delete_DM: spec((ctx, target, p) => {
    p.int('data_security_erase', 2, { min: 0, max: 2, fallback: 0 });
    const entry = requireEntry(p.fn, ctx.state, target);
    checkUnlocked(p.fn, ctx.state, target);
    if (ctx.state.running.has(target) && isLoggedOn(ctx, target)) {
      throw new SimFault(p.fn, 596, 6831, `${target} is logged on; delete not finished`);
    }
    freeEntryDisks(ctx.state, target, entry.statements);
    ctx.state.entries.delete(target);
    for (const lock of [...ctx.state.locks]) {
      if (lock === target || lock.startsWith(`${target}/`)) ctx.state.locks.delete(lock);
    }
    dropConsole(ctx, target);
    return { output: { operation_id: SYNC_OPERATION_ID } };
  }, true),

  Image_Query_DM: spec((ctx, target, p) => {
    const entry = requireEntry(p.fn, ctx.state, target);
    return { output: { image_record_array: entry.statements.map(formatRecord) } };
  }, false),

  Image_Name_Query_DM: spec((ctx) => {
    const names = [...ctx.state.entries.keys()].sort();
    return { output: { image_name_array: names.map((image_name) => ({ image_name })) } };
  }, false, 'any'),

  Image_Lock_DM: spec((ctx, target, p) => {
    const dev = p.str('device_address', 2, { max: 4 });
    requireEntry(p.fn, ctx.state, target);
    if (ctx.state.locks.has(target)) throw new SimFault(p.fn, 400, 12, `${target} is already locked`);
    if (dev) {
      const key = `${target}/${p.vdev('device_address', 2)}`;
      if (ctx.state.locks.has(key)) throw new SimFault(p.fn, 404, 12, `${key} is already locked`);
      ctx.state.locks.add(key);
    } else {
      ctx.state.locks.add(target);
    }
  }, true),

  Image_Unlock_DM: spec((ctx, target, p) => {
    const dev = p.str('device_address', 2, { max: 4 });
    requireEntry(p.fn, ctx.state, target);
    if (dev) {
      const key = `${target}/${p.vdev('device_address', 2)}`;
      if (!ctx.state.locks.delete(key)) throw new SimFault(p.fn, 404, 24, `${key} is not locked`);
    } else if (!ctx.state.locks.delete(target)) {
      throw new SimFault(p.fn, 400, 24, `${target} is not locked`);
    }
  }, true),

  /** Needs the entry lock (400/24); replacing unlocks it. MDISK extents follow the new entry. */
  Image_Replace_DM: spec((ctx, target, p) => {
    const records = p.list('image_record_array', 2);
    const entry = requireEntry(p.fn, ctx.state, target);
    if (!ctx.state.locks.has(target)) throw new SimFault(p.fn, 400, 24, `${target} is not locked`);
    if (records.length === 0) throw new SimFault(p.fn, 24, 224, 'no directory records given');
    const statements = validateEntry(p.fn, ctx.state, target, records);
    freeEntryDisks(ctx.state, target, entry.statements);
    try {
      claimEntryDisks(p.fn, ctx.state, target, statements);
    } catch (err) {
      claimEntryDisks(p.fn, ctx.state, target, entry.statements); // restore the old extents
      throw err;
    }
    entry.statements = statements;
    ctx.state.locks.delete(target);
  }, true),
};
