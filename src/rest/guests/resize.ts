import { feilongErrors } from '../feilong-error.js';
import type { ActionContext } from './actions.js';
import { formatSizeMB, parseSizeMB } from './sizes.js';
import { normalizeShare } from '../../api/zguest.js';

async function describe(ctx: ActionContext) {
  const state = await ctx.service.hypervisorFor(ctx.guest).describeGuest(ctx.guest.spec.userid);
  if (!state) throw feilongErrors.guestNotInDirectory(ctx.guest.spec.userid);
  return state;
}

function policy(live: boolean) {
  return live ? 'LiveWhenPossible' : 'Deferred';
}

/** resize_cpus / live_resize_cpus as a spec.vcpus write with the interface's rules (§3.6). */
export async function resizeCpus(ctx: ActionContext, count: number, live: boolean, share?: string): Promise<string> {
  const userid = ctx.guest.spec.userid;
  const state = await describe(ctx);
  const max = ctx.guest.spec.maxCpus ?? state.directory.maxCpus;
  if (count > max) {
    throw feilongErrors.conflict(4, `Failed to resize cpus of guest: '${userid}', error: the requested number of cpus: '${count}' exceeds the maximum number of cpus allowed: '${max}'.`);
  }
  if (live) {
    if (state.power === 'off') throw feilongErrors.guestNotActive(userid);
    const active = state.active?.cpus ?? 0;
    if (count < active) {
      throw feilongErrors.conflict(2, `Failed to live resize cpus of guest: '${userid}', error: current active cpu count: '${active}' is greater than requested count: '${count}'.`);
    }
  }
  // cpu_share sets the SHARE statement with the count (the reference writes both in one directory update)
  const spec = { vcpus: count, resizePolicy: policy(live), ...(share ? { share: normalizeShare(share) } : {}) };
  await ctx.service.patchAndWait(ctx.guest, { spec }, () => true, `guest '${userid}' to resize its cpus`);
  return '';
}

/** resize_mem / live_resize_mem as a spec.memory write (§3.7). */
export async function resizeMemory(ctx: ActionContext, size: string, live: boolean): Promise<string> {
  const userid = ctx.guest.spec.userid;
  const wanted = parseSizeMB(size) ?? 0;
  const state = await describe(ctx);
  const max = parseSizeMB(ctx.guest.spec.maxMemory ?? state.directory.maxMemory) ?? Number.MAX_SAFE_INTEGER;
  if (wanted > max) {
    throw feilongErrors.conflict(20, `Failed to resize memory of guest: '${userid}', error: the requested memory size: '${wanted}m' exceeds the maximum memory size defined: '${max}m'.`);
  }
  if (live) {
    if (state.power === 'off') throw feilongErrors.guestNotActive(userid);
    const active = state.active?.memoryMB ?? 0;
    if (active > wanted) {
      throw feilongErrors.conflict(18, `Failed to live resize memory of guest: '${userid}', error: current active memory size: '${active}'m is greater than requested size: '${wanted}'m.`);
    }
  }
  const memory = formatSizeMB(wanted);
  await ctx.service.patchAndWait(ctx.guest, { spec: { memory, resizePolicy: policy(live) } }, () => true, `guest '${userid}' to resize its memory`);
  return '';
}
