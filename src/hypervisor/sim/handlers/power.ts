/** Power functions: activate, deactivate, pause, status, active CPU definition. */
import { normalizeCpuAddress } from '../../directory/directory.js';
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import { account, logoff, logon, settle } from '../power.js';
import { appendConsole } from '../spool.js';
import type { Running } from '../state.js';

/** Active calls: not in the directory → 200/4; logged off → `offRc`/`offRs` (200/12 by default). */
export function requireRunning(ctx: SimContext, fn: string, userid: string, offRc = 200, offRs = 12): Running {
  if (!ctx.state.entries.has(userid)) throw new SimFault(fn, 200, 4, `${userid} is not in the directory`);
  const r = settle(ctx, userid);
  if (!r) throw new SimFault(fn, offRc, offRs, `${userid} is not logged on`);
  return r;
}

/** force_time → seconds until logoff (0 = now), validated. */
function forceSeconds(ctx: SimContext, fn: string, forceTime: string): number {
  const ft = forceTime.toUpperCase().replace(/\s+/g, ' ');
  if (ft === '') return ctx.config.shutdownTimeSeconds;
  if (ft === 'IMMED') return 0;
  const within = /^WITHIN (\d{1,5})$/.exec(ft);
  if (within) {
    const n = Number(within[1]);
    if (n < 1 || n > 65535) throw syntaxFault(fn, 2, Syntax.aboveMax, 'WITHIN must be 1..65535');
    if (n > ctx.config.maxShutdownSeconds) throw new SimFault(fn, 200, 36, 'interval above the system maximum');
    return n;
  }
  // BY hh:mm[:ss]: the simulator has no wall clock, so it uses the system shutdown time
  if (/^BY \d{1,2}:\d{2}(:\d{2})?$/.test(ft)) return ctx.config.shutdownTimeSeconds;
  throw syntaxFault(fn, 2, Syntax.unrecognized, `unrecognized force time '${forceTime}'`);
}

function pauseWanted(fn: string, action: string): boolean {
  const a = action.toUpperCase().replace(/\s+/g, '');
  if (a === 'PAUSE' || a === 'PAUSE=YES' || a === 'YES' || a === 'ACTION=PAUSE') return true;
  if (a === 'UNPAUSE' || a === 'PAUSE=NO' || a === 'NO' || a === 'ACTION=UNPAUSE') return false;
  throw syntaxFault(fn, 2, Syntax.unrecognized, `unrecognized pause action '${action}'`);
}

export const powerHandlers: Record<string, HandlerSpec> = {
  Image_Activate: spec((ctx, target, p) => {
    const entry = ctx.state.entries.get(target);
    if (!entry) throw new SimFault(p.fn, 200, 4, `${target} is not in the directory`);
    const r = settle(ctx, target);
    if (r?.logoffAtSeq !== undefined) throw new SimFault(p.fn, 200, 16, `${target} is being deactivated`);
    if (r) throw new SimFault(p.fn, 200, 8, `${target} is already active`);
    logon(ctx, entry);
  }, true),

  /**
   * rc 0 rs = seconds until logoff. IMMED logs off now; otherwise the logoff is pending for
   * `logoffPendingCalls` calls (200/16 meanwhile). IMMED during a pending logoff forces it
   * off at once and still answers 200/16, as CP FORCE does for a user already signalled.
   */
  Image_Deactivate: spec((ctx, target, p) => {
    const seconds = forceSeconds(ctx, p.fn, p.str('force_time', 2, { max: 12 }));
    const r = requireRunning(ctx, p.fn, target);
    if (r.logoffAtSeq !== undefined) {
      if (seconds === 0) logoff(ctx, target, 'FORCED IMMEDIATELY');
      throw new SimFault(p.fn, 200, 16, `${target} is being deactivated`);
    }
    if (seconds === 0) {
      logoff(ctx, target, 'FORCED IMMEDIATELY');
    } else {
      r.logoffAtSeq = ctx.state.seq + ctx.config.logoffPendingCalls + 1;
      appendConsole(ctx, target, `SIGNAL SHUTDOWN WITHIN ${seconds}`);
    }
    return { rs: seconds };
  }, true),

  /** PAUSE=YES|NO (zthin) or action=pause|unpause (pysmapi); not logged on → 8/12. */
  Image_Pause: spec((ctx, target, p) => {
    const pause = pauseWanted(p.fn, p.str('action', 2, { min: 1, max: 16 }));
    const r = requireRunning(ctx, p.fn, target, 8, 12);
    if (r.paused === pause) return;
    account(ctx.state, r);
    r.paused = pause;
    appendConsole(ctx, target, pause ? 'CP STOP (PAUSED)' : 'CP BEGIN (RESUMED)');
  }, true),

  /** Target '*' lists every logged-on guest; one guest not logged on → rc 0 rs 12. */
  Image_Status_Query: spec((ctx, target) => {
    if (target === '*') {
      const names: string[] = [];
      for (const userid of [...ctx.state.running.keys()]) if (settle(ctx, userid)) names.push(userid);
      return { output: { image_name_array: names.sort().map((image_name) => ({ image_name })) } };
    }
    if (!settle(ctx, target)) return { rs: 12 };
    return { output: { image_name_array: [{ image_name: target }] } };
  }, false, 'any'),

  /** CP DEFINE CPU on the running guest only (216/12 off, 216/24 exists, 216/28 above MACHINE ESA). */
  Image_CPU_Define: spec((ctx, target, p) => {
    const addr = normalizeCpuAddress(p.str('cpu_address', 2, { min: 1, max: 2 }));
    if (!addr) throw syntaxFault(p.fn, 2, Syntax.notHex, 'cpu_address must be hexadecimal');
    p.int('cpu_type', 3, { min: 0, max: 255, fallback: 0 });
    const r = requireRunning(ctx, p.fn, target, 216, 12);
    if (parseInt(addr, 16) > 0x3f) throw new SimFault(p.fn, 216, 2, `CPU address ${addr} out of range`);
    if (r.cpus.includes(addr)) throw new SimFault(p.fn, 216, 24, `CPU ${addr} already defined`);
    if (r.cpus.length + 1 > r.maxCpus) throw new SimFault(p.fn, 216, 28, 'beyond the MACHINE ESA maximum');
    account(ctx.state, r);
    r.cpus = [...r.cpus, addr].sort();
    appendConsole(ctx, target, `CPU ${addr} DEFINED`);
  }, true),
};
