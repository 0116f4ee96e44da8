/** Host queries, performance records, console spool and protocol plumbing. */
import type { ImagePerformanceRecord } from '../../smapi/functions.js';
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { SimFault } from '../fault.js';
import { account, settle, VIRTUAL_US_PER_CALL } from '../power.js';
import { closeConsole, consoleText } from '../spool.js';
import type { Running } from '../state.js';

/**
 * Bit of the performance record's `flags` word the simulator sets for a paused (CP STOPped)
 * guest. Real z/VM has no SMAPI way to report "paused"; this is the simulator's extension.
 */
export const PAUSED_FLAG = 0x0000_0001;

/** '7.1.0' → 710 */
export function functionalLevel(version: string): number {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major * 100 + minor * 10;
}

function clock(seq: number): { date: string; time: string } {
  const t = new Date(Date.UTC(2026, 0, 1) + seq * VIRTUAL_US_PER_CALL / 1000);
  return { date: t.toISOString().slice(0, 10), time: t.toISOString().slice(11, 19) };
}

/** The six items of a z/VM 7.1 System_Information_Query, in the token order feilong indexes. */
function systemInformation(ctx: SimContext): string[] {
  const h = ctx.config.host;
  const now = clock(ctx.state.seq);
  return [
    'CMS_LEVEL=LEVEL=29 SERVICE_LEVEL=0000 LANGUAGE=AMENG',
    'CPU_CAPABILITY=PRIMARY=1 SECONDARY=1 NOMINAL=1 ADJUSTMENT_INDICATION=0 CHANGE_REASON=0 CHANGE_EXPLANATION_LENGTH=0 CHANGE_EXPLANATION=""',
    `CPUID=ID=${h.cpuId}`,
    `CP_LEVEL=VERSION=${ctx.config.version} SERVICE_LEVEL=0000 GENERATION_TIME=00:00:00 GENERATION_DATE=${h.iplDate} ` +
      `GENERATION_TIME_ZONE=UTC IPL_TIME=${h.iplTime} IPL_DATE=${h.iplDate} IPL_TIME_ZONE=UTC LANGUAGE=AMENG`,
    `STORAGE=ONLINE=${h.memoryGB}G CONFIGURED=${h.memoryGB}G INCREMENT=1M STANDBY=0 RESERVED=0`,
    `TIME=TIMEZONE=UTC TIME=${now.time} DATE=${now.date} CONNECT=00:00:00 VIRTUAL_CPU=000:00.00 TOTAL_CPU=000:00.00`,
  ];
}

/** Deterministic counters derived from the virtual clock (one call = 1 ms). */
function performanceRecord(ctx: SimContext, r: Running): ImagePerformanceRecord {
  account(ctx.state, r);
  const elapsedCalls = ctx.state.seq - r.logonSeq;
  const memKb = r.memoryMB * 1024;
  const samplesTotal = elapsedCalls;
  const inUse = r.paused ? 0 : Math.floor(samplesTotal / 10);
  return {
    version: 1,
    flags: r.paused ? PAUSED_FLAG : 0,
    used_cpu_time: r.cpuUsedUs,
    elapsed_time: elapsedCalls * VIRTUAL_US_PER_CALL,
    min_memory: memKb,
    max_memory: memKb,
    shared_memory: 0,
    used_memory: Math.floor(memKb / 4),
    active_cpus_in_cec: ctx.config.host.cpus,
    logical_cpus_in_vm: ctx.config.host.cpus,
    guest_cpus: r.cpus.length,
    min_cpu_count: r.cpus.length,
    max_cpu_limit: r.maxCpus,
    processor_share: r.share,
    samples_cpu_in_use: inUse,
    samples_cpu_delay: 0,
    samples_page_wait: 0,
    samples_idle: samplesTotal - inUse,
    samples_other: 0,
    samples_total: samplesTotal,
    guest_name: r.userid,
  };
}

export const systemHandlers: Record<string, HandlerSpec> = {
  System_Information_Query: spec((ctx) => ({ output: { system_information_data: systemInformation(ctx) } }), false, 'any'),

  /** The level is the rs: 710 for z/VM 7.1. */
  Query_API_Functional_Level: spec((ctx) => ({ rs: functionalLevel(ctx.config.version) }), false, 'any'),

  /** Every DM call completes synchronously here, so any operation reads as done (rs 100). */
  Query_Asynchronous_Operation_DM: spec((_ctx, _target, p) => {
    p.int('operation_id', 2);
    return { rs: 100 };
  }, false, 'any'),

  /**
   * Records for the logged-on guests among `image_names` (a logged-off one yields no record);
   * `flags` carries PAUSED_FLAG for a paused guest.
   */
  Image_Performance_Query: spec((ctx, _target, p) => {
    const names = p.list('image_names', 2).flatMap((n) => n.trim().toUpperCase().split(/\s+/)).filter((n) => n !== '');
    const records: ImagePerformanceRecord[] = [];
    for (const name of names) {
      const r = settle(ctx, name);
      if (r) records.push(performanceRecord(ctx, r));
    }
    return { output: { performance_records: records } };
  }, false, 'any'),

  /**
   * As on z/VM, closes the console spool file and transfers it to the caller's reader (the
   * management guest's, config.mgmtUserid), where `vmur` reads it; nothing new spooled since the
   * last call: no file. In-process callers also get the whole retained log in `console_text`
   * (a simulator extension, not on the wire; documented in index.ts).
   * Not logged on, or nothing ever spooled → 8/8.
   */
  Image_Console_Get: spec((ctx, target, p) => {
    if (!settle(ctx, target)) throw new SimFault(p.fn, 8, 8, `${target} is not logged on`);
    const text = consoleText(ctx, target);
    if (text === undefined) throw new SimFault(p.fn, 8, 8, `no console spool for ${target}`);
    closeConsole(ctx, target, ctx.config.mgmtUserid);
    return { output: { console_text: text } };
  }, true),
};
