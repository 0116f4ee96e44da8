/** Minidisk functions: create/delete in the directory, link into a running guest, query. */
import { isFbaDeviceType, normalizeVdev } from '../../directory/directory.js';
import { SYNC_OPERATION_ID } from '../../smapi/functions.js';
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { allocateInPool, allocateOnVolume, claimExtent, freeExtent, mdiskDeviceType } from '../disk-pools.js';
import { deviceUser, entryForUpdate, mdisksOf, removeStatements } from '../directory-store.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import type { Params } from '../params.js';
import { appendConsole } from '../spool.js';
import { requireRunning } from './power.js';
import { spaceHandlers } from './volume-space.js';

const MODE_RE = /^(RR|R|WR|W|MR|MW|M)(V|E)?$/;
/** Largest virtual disk in 512-byte blocks (docs/smapi.md §5.2). */
const VDISK_MAX_BLOCKS = 4_194_296;

interface DiskCreate {
  vdev: string;
  deviceType: string;
  allocation: string;
  area: string;
  size: number;
  mode: string;
  passwords: string[];
}

function readDiskCreate(p: Params): DiskCreate {
  const vdev = p.vdev('image_disk_number', 2);
  const deviceType = p.str('image_disk_device_type', 3, { min: 1, max: 8 }).toUpperCase();
  const allocation = p.str('image_disk_allocation_type', 4, { min: 1, max: 10 }).toUpperCase();
  const area = p.str('allocation_area_name_or_volser', 5, { max: 8 }).toUpperCase();
  const unit = p.int('allocation_unit_size', 6, { min: 1, max: 5, fallback: 1 });
  const raw = p.int('image_disk_size', 7, { min: 1 });
  const mode = p.str('image_disk_mode', 8, { min: 1, max: 5 }).toUpperCase();
  if (!MODE_RE.test(mode)) throw syntaxFault(p.fn, 8, Syntax.unrecognized, `unrecognized mode ${mode}`);
  p.int('image_disk_formatting', 9, { min: 0, max: 6, fallback: 0 });
  p.str('image_disk_label', 10, { max: 6 });
  const passwords = ['read_password', 'write_password', 'multi_password'].map((n, i) => p.str(n, 11 + i, { max: 8 }).toUpperCase());
  // feilong sends unit 1 even for FBA block counts: the device type decides (docs/smapi.md §1.9)
  const size = isFbaDeviceType(deviceType) && unit >= 3 ? raw * 2 ** (unit - 2) : raw;
  return { vdev, deviceType, allocation, area, size, mode, passwords };
}

function poolTypeMatches(deviceType: string, poolType: 'ECKD' | 'FBA'): boolean {
  return isFbaDeviceType(deviceType) === (poolType === 'FBA');
}

/** Allocates the disk and returns the MDISK statement's operands after the vdev and device type. */
function allocate(ctx: SimContext, fn: string, userid: string, d: DiskCreate): { deviceType: string; where: string } {
  const { state } = ctx;
  const noSpace = () => new SimFault(fn, 408, 24, 'not enough contiguous free space on any volume');
  if (d.allocation === 'V-DISK') {
    if (d.size > VDISK_MAX_BLOCKS) throw syntaxFault(fn, 7, Syntax.aboveMax, 'V-DISK too large');
    return { deviceType: 'FB-512', where: `V-DISK ${d.size}` };
  }
  if (d.allocation === 'T-DISK') return { deviceType: d.deviceType, where: `T-DISK ${d.size}` };
  if (d.allocation === 'DEVNO') return { deviceType: d.deviceType, where: `DEVNO ${normalizeVdev(d.area) ?? d.area}` };
  if (d.allocation === 'AUTOG') {
    const pool = state.pools.get(d.area);
    if (!pool || !poolTypeMatches(d.deviceType, pool.type)) throw new SimFault(fn, 420, 8, `group ${d.area} not defined`);
    const got = allocateInPool(pool, d.size, userid, d.vdev);
    if (!got) throw noSpace();
    return { deviceType: mdiskDeviceType(pool.type), where: `${got.extent.start} ${d.size} ${got.vol.volser}` };
  }
  const vol = state.volumes.get(d.area);
  if (d.allocation === 'AUTOV' || d.allocation === 'AUTOR') {
    if (!vol || !poolTypeMatches(d.deviceType, vol.type)) throw new SimFault(fn, 420, 8, `volume ${d.area} not defined`);
    const extent = allocateOnVolume(vol, d.size, userid, d.vdev);
    if (!extent) throw noSpace();
    return { deviceType: mdiskDeviceType(vol.type), where: `${extent.start} ${d.size} ${vol.volser}` };
  }
  if (/^\d+$/.test(d.allocation)) {
    if (!vol) throw new SimFault(fn, 420, 8, `volume ${d.area} not defined`);
    if (!claimExtent(vol, Number(d.allocation), d.size, userid, d.vdev)) throw noSpace();
    return { deviceType: mdiskDeviceType(vol.type), where: `${Number(d.allocation)} ${d.size} ${vol.volser}` };
  }
  throw syntaxFault(fn, 4, Syntax.unrecognized, `unrecognized allocation type ${d.allocation}`);
}

export const diskHandlers: Record<string, HandlerSpec> = {
  /** AUTOG/AUTOV/AUTOR/<start>/V-DISK/T-DISK/DEVNO; vdev in use → 408/4 (MDISK) or 404/4 (NIC, DEDICATE…). */
  Image_Disk_Create_DM: spec((ctx, target, p) => {
    const d = readDiskCreate(p);
    const entry = entryForUpdate(p.fn, ctx.state, target, d.vdev);
    const user = deviceUser(entry.statements, d.vdev);
    if (user === 'MDISK') throw new SimFault(p.fn, 408, 4, `disk ${d.vdev} already defined`);
    if (user === 'OTHER') throw new SimFault(p.fn, 404, 4, `device ${d.vdev} already defined`);
    const { deviceType, where } = allocate(ctx, p.fn, target, d);
    const pw = d.passwords.filter((x) => x !== '');
    entry.statements.push(['MDISK', d.vdev, deviceType, where, d.mode, ...pw].join(' '));
    return { output: { operation_id: 0 } };
  }, true),

  /** Missing disk → 208/36 (feilong-compatible); the extent returns to its volume. */
  Image_Disk_Delete_DM: spec((ctx, target, p) => {
    const vdev = p.vdev('image_disk_number', 2);
    p.int('data_security_erase', 3, { min: 0, max: 2, fallback: 0 });
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    const disk = mdisksOf(entry.statements).get(vdev);
    if (!disk) throw new SimFault(p.fn, 208, 36, `disk ${vdev} does not exist`);
    freeExtent(ctx.state, disk.volser, disk.start, target);
    removeStatements(entry, (t) => t[0] === 'MDISK' && normalizeVdev(t[1] ?? '') === vdev);
    return { output: { operation_id: SYNC_OPERATION_ID } };
  }, true),

  /** Links a directory disk into the running guest (LINK uid vdev vdev mode). */
  Image_Disk_Create: spec((ctx, target, p) => {
    const vdev = p.vdev('image_disk_number', 2);
    const mode = p.str('image_disk_mode', 3, { max: 5 }).toUpperCase();
    const r = requireRunning(ctx, p.fn, target);
    const disk = mdisksOf(ctx.state.entries.get(target)?.statements ?? []).get(vdev);
    if (!disk) throw new SimFault(p.fn, 208, 36, `disk ${vdev} is not in the directory`);
    if (r.disks.has(vdev)) throw new SimFault(p.fn, 204, 4, `device ${vdev} already exists`);
    const vol = ctx.state.volumes.get(disk.volser);
    r.disks.set(vdev, {
      vdev,
      deviceType: vol ? mdiskDeviceType(vol.type) : disk.deviceType,
      volser: disk.volser,
      start: disk.start,
      size: disk.size,
      mode: mode || disk.mode,
      rdev: disk.volser === 'V-DISK' ? 'VDSK' : (vol?.rdev ?? '0000'),
    });
    appendConsole(ctx, target, `DASD ${vdev} LINKED ${mode || disk.mode}`);
  }, true),

  /** 29-byte records of the running guest's disks; not logged on → 200/12, vdev missing → 8/8. */
  Image_Disk_Query: spec((ctx, target, p) => {
    const id = p.str('vdasd_id', 2, { min: 1, max: 4 }).toUpperCase();
    const r = requireRunning(ctx, p.fn, target);
    const vdevs = id === 'ALL' ? [...r.disks.keys()].sort() : [normalizeVdev(id) ?? id];
    const records = vdevs.map((vdev) => {
      const d = r.disks.get(vdev);
      if (!d) throw new SimFault(p.fn, 8, 8, `device ${vdev} does not exist`);
      const fba = isFbaDeviceType(d.deviceType);
      const volid = d.volser === 'V-DISK' ? '(VDSK)' : d.volser === 'T-DISK' ? '(TEMP)' : d.volser;
      return {
        vdasd_vdev: d.vdev,
        vdasd_rdev: d.rdev.padStart(4, '0').slice(0, 4),
        vdasd_access_type: d.mode.startsWith('R') ? 1 : 2,
        vdasd_devtype: fba ? '9336' : '3390',
        vdasd_size: d.size,
        vdasd_unit: fba ? 2 : 1,
        vdasd_volid: volid.padEnd(6, ' ').slice(0, 6),
      };
    });
    return { output: { vdasd_array: records } };
  }, false),

  ...spaceHandlers,
};
