/**
 * Dedicated devices and the FCP inventory: Image_Device_Dedicate(_DM), Image_Device_Undedicate(_DM)
 * and System_WWPN_Query (docs/smapi.md §3.3, §5.4, §6.2).
 *
 * Simulator choices: the DM variants do not look at the real device (DirMaint does not either);
 * the active Dedicate refuses a configured FCP that is offline (204/16) or attached to another
 * logged-on guest (204/12), and a vdev the running guest already uses (204/4).
 */
import { normalizeVdev } from '../../directory/statements.js';
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { deviceUser, entryForUpdate, insertStatement, removeStatements } from '../directory-store.js';
import { SimFault } from '../fault.js';
import { attachedDevices, describeFcps, fcpDevices } from '../fcp-inventory.js';
import type { Params } from '../params.js';
import { activeDevices } from '../power.js';
import { requireRunning } from './power.js';

const STATUS_CODE = { active: '1', free: '2', offline: '3' } as const;

function readDedicate(p: Params): { vdev: string; rdev: string; readonly: boolean } {
  const vdev = p.vdev('image_device_number', 2);
  const rdev = p.vdev('real_device_number', 3);
  const readonly = p.int('readonly', 4, { min: 0, max: 1, fallback: 0 }) === 1;
  return { vdev, rdev, readonly };
}

const isDedicateOf = (vdev: string) => (t: string[]) => t[0] === 'DEDICATE' && normalizeVdev(t[1] ?? '') === vdev;

function checkRealDevice(ctx: SimContext, fn: string, userid: string, rdev: string): void {
  const fcp = fcpDevices(ctx.config).find((d) => d.fcp === rdev);
  if (fcp?.status === 'offline') throw new SimFault(fn, 204, 16, `device ${rdev} is offline`);
  const holder = attachedDevices(ctx.state).get(rdev);
  if (holder && holder !== userid) throw new SimFault(fn, 204, 12, `device ${rdev} is attached to ${holder}`);
}

export const fcpHandlers: Record<string, HandlerSpec> = {
  /** DEDICATE vdev rdev [R/O]; an occupied vdev → 408/4 (MDISK) or 404/4. */
  Image_Device_Dedicate_DM: spec((ctx, target, p) => {
    const { vdev, rdev, readonly } = readDedicate(p);
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    const used = deviceUser(entry.statements, vdev);
    if (used) throw new SimFault(p.fn, used === 'MDISK' ? 408 : 404, 4, `device ${vdev} is already defined`);
    insertStatement(entry, `DEDICATE ${vdev} ${rdev}${readonly ? ' R/O' : ''}`, (t) => t[0] === 'DEDICATE' || t[0] === 'NICDEF' || t[0] === 'MDISK');
  }, true),

  /** CP ATTACH rdev TO userid AS vdev; not logged on → 200/12. */
  Image_Device_Dedicate: spec((ctx, target, p) => {
    const { vdev, rdev } = readDedicate(p);
    const r = requireRunning(ctx, p.fn, target);
    if (activeDevices(r).has(vdev)) throw new SimFault(p.fn, 204, 4, `device ${vdev} already exists`);
    checkRealDevice(ctx, p.fn, target, rdev);
    r.dedicates.set(vdev, rdev);
  }, true),

  /** Removes the DEDICATE statement; none → 404/8 (feilong tolerates it). */
  Image_Device_Undedicate_DM: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    if (removeStatements(entry, isDedicateOf(vdev)) === 0) throw new SimFault(p.fn, 404, 8, `device ${vdev} is not defined`);
  }, true),

  /** CP DETACH vdev; not attached → 204/8 (feilong tolerates it). */
  Image_Device_Undedicate: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const r = requireRunning(ctx, p.fn, target);
    if (!r.dedicates.delete(vdev)) throw new SimFault(p.fn, 204, 8, `device ${vdev} does not exist`);
  }, true),

  /** One line per FCP; none configured → 4/28 (empty buffer). */
  System_WWPN_Query: spec((ctx) => {
    const fcps = describeFcps(ctx.state, ctx.config);
    if (fcps.length === 0) return { rc: 4, rs: 28 };
    return {
      output: {
        wwpn_array: fcps.map((d) => ({
          fcp_dev_id: d.fcp, npiv_wwpn: d.npivWwpn, chpid: d.chpid, perm_wwpn: d.physWwpn,
          dev_status: STATUS_CODE[d.status], owner: d.owner ?? 'NONE',
        })),
      },
    };
  }, false, 'any'),
};
