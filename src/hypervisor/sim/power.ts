/**
 * Power states and the active configuration (docs/smapi.md §4.4, §7). A logon copies the
 * directory's CPUs, storage, disks, NICs and dedicated devices into a Running record; directory
 * changes afterwards do not touch it. A logoff without IMMED stays pending for
 * `logoffPendingCalls` handled calls, then completes the next time anyone looks.
 */
import { deviceRange, memoryToMB, parseDirectory, parseNicdefs, tokensOf } from '../directory/directory.js';
import type { GuestDirectory } from '../port.js';
import type { SimContext } from './context.js';
import { mdiskDeviceType } from './disk-pools.js';
import { appendConsole } from './spool.js';
import { MAC_PREFIX, nextMacId } from './state.js';
import type { ActiveDisk, ActiveNic, DirEntry, Running, SimState } from './state.js';

/** Virtual microseconds per handled call; guests use 10% of each virtual CPU while running. */
export const VIRTUAL_US_PER_CALL = 1000;
const CPU_BUSY_FRACTION = 0.1;

/** The running record of a guest after resolving a due logoff; undefined when logged off. */
export function settle(ctx: SimContext, userid: string): Running | undefined {
  const r = ctx.state.running.get(userid);
  if (r?.logoffAtSeq !== undefined && ctx.state.seq >= r.logoffAtSeq) {
    logoff(ctx, userid, 'LOGOFF COMPLETE AFTER SHUTDOWN SIGNAL');
    return undefined;
  }
  return r;
}

/** Brings CPU-time accounting up to now (a paused guest accumulates nothing). */
export function account(state: SimState, r: Running): void {
  if (!r.paused) {
    r.cpuUsedUs += Math.round((state.seq - r.accountedSeq) * VIRTUAL_US_PER_CALL * CPU_BUSY_FRACTION * r.cpus.length);
  }
  r.accountedSeq = state.seq;
}

function shareOf(lines: readonly string[]): number {
  for (const l of lines) {
    const t = tokensOf(l);
    if (t[0] === 'SHARE' && t[1] === 'RELATIVE' && /^\d+$/.test(t[2] ?? '')) return Number(t[2]);
  }
  return 100;
}

function cpuAddresses(dir: GuestDirectory): string[] {
  const addrs = new Set<string>();
  for (const l of dir.lines) {
    const t = tokensOf(l);
    if (t[0] === 'CPU' && t[1]) addrs.add(t[1].padStart(2, '0'));
    if (t[0] === 'COMMAND' && /^DEF(I|IN|INE)?$/.test(t[1] ?? '') && t[2] === 'CPU' && t[3]) addrs.add(t[3].padStart(2, '0'));
  }
  return addrs.size > 0 ? [...addrs].sort() : ['00'];
}

function activeDisks(ctx: SimContext, dir: GuestDirectory): Map<string, ActiveDisk> {
  const out = new Map<string, ActiveDisk>();
  for (const d of dir.disks) {
    const vol = ctx.state.volumes.get(d.volser);
    const rdev = d.volser === 'V-DISK' ? 'VDSK' : (vol?.rdev ?? '0000');
    const deviceType = vol ? mdiskDeviceType(vol.type) : d.deviceType;
    out.set(d.vdev, { vdev: d.vdev, deviceType, volser: d.volser, start: d.start, size: d.size, mode: d.mode, rdev });
  }
  return out;
}

/** A NIC is coupled at logon when its vswitch exists and the guest is granted on it. */
function activeNics(ctx: SimContext, userid: string, lines: readonly string[]): Map<string, ActiveNic> {
  const out = new Map<string, ActiveNic>();
  for (const n of parseNicdefs(lines).values()) {
    const vsw = n.vswitch ? ctx.state.vswitches.get(n.vswitch) : undefined;
    const coupled = vsw !== undefined && vsw.grants.has(userid);
    const mac = MAC_PREFIX + (n.macId ? n.macId.padStart(6, '0') : nextMacId(ctx.state));
    out.set(n.vdev, { vdev: n.vdev, devices: n.devices, type: n.type, mac, ...(coupled ? { vswitch: vsw.name } : {}) });
  }
  return out;
}

/** Image_Activate: logs the guest on with its directory configuration. */
export function logon(ctx: SimContext, entry: DirEntry): Running {
  const dir = parseDirectory(entry.statements);
  // an entry with unparsable storage still logs on (with 0 MB reported)
  const memoryMB = /^\d+[KMGT]?$/i.test(dir.memory) ? memoryToMB(dir.memory) : 0;
  const r: Running = {
    userid: entry.userid,
    paused: false,
    cpus: cpuAddresses(dir),
    maxCpus: dir.maxCpus,
    memoryMB,
    share: shareOf(dir.lines),
    disks: activeDisks(ctx, dir),
    nics: activeNics(ctx, entry.userid, dir.lines),
    dedicates: new Map(dir.dedicates.map((d) => [d.vdev, d.rdev])),
    logonSeq: ctx.state.seq,
    cpuUsedUs: 0,
    accountedSeq: ctx.state.seq,
  };
  ctx.state.running.set(entry.userid, r);
  appendConsole(
    ctx,
    entry.userid,
    `LOGON ${entry.userid} ON ${ctx.config.systemName} Z/VM V${ctx.config.version}`,
    `CPUS ${r.cpus.join(' ')} STORAGE ${dir.memory || '0M'}`,
    dir.ipl ? `IPL ${dir.ipl}` : 'NO IPL DEVICE DEFINED',
  );
  return r;
}

export function logoff(ctx: SimContext, userid: string, reason: string): void {
  if (!ctx.state.running.delete(userid)) return;
  appendConsole(ctx, userid, reason, `LOGOFF ${userid}`);
}

/** Every device number the running guest uses (for 204/4 collisions). */
export function activeDevices(r: Running): Set<string> {
  const out = new Set<string>([...r.disks.keys(), ...r.dedicates.keys()]);
  for (const n of r.nics.values()) for (const d of deviceRange(n.vdev, n.devices)) out.add(d);
  return out;
}
