/** Host-wide queries beside System_Information_Query: processors, performance and SSI membership. */
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { SimFault } from '../fault.js';

const PAGE_KB = 4;
/** The simulated cluster's name and its persistent data record (volume and device), as SSI_Query reports them. */
const SSI_NAME = 'ZVMSIMSSI';
const SSI_PDR = 'SIMPDR_on_0200';

/** SSI_Query's heartbeat form, MM/DD/YYYY_HH:MM:SS (UTC). */
function ssiHeartbeat(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()}_${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}
/** CP's own storage in use (pages) on an idle host, so an empty host does not read 0. */
const CP_BASE_PAGES = 65_536;

/** One IFL per configured CPU: the first is the master, the others alternates (a running LPAR). */
function processors(ctx: SimContext): string[] {
  return Array.from({ length: ctx.config.host.cpus }, (_, i) => {
    const addr = i.toString(16).toUpperCase().padStart(4, '0');
    return `${addr} ${i === 0 ? 'MASTER-PROCESSOR' : 'ALTERNATE'} IFL ${addr}`;
  });
}

/** Memory in use follows the logged-on guests: their storage plus CP's base. */
function performance(ctx: SimContext): string[] {
  const guestPages = [...ctx.state.running.values()].reduce((sum, r) => sum + (r.memoryMB * 1024) / PAGE_KB, 0);
  const totalPages = (ctx.config.host.memoryGB * 1024 * 1024) / PAGE_KB;
  return [
    `CPU_COUNT=${String(ctx.config.host.cpus).padStart(4, '0')}`,
    'CPU_AVERAGE_USE=0%',
    'PAGING_RATE=0',
    `MEMORY_IN_USE=${Math.min(totalPages, CP_BASE_PAGES + guestPages)}`,
    `MEMORY_TOTAL=${totalPages}`,
    'MONITOR_RATE=2.00 SECONDS ',
    'MONITOR_INTERVAL=1 MINUTES ',
    `MY_LPAR_NAME=${ctx.config.systemName}`,
  ];
}

export const hostQueryHandlers: Record<string, HandlerSpec> = {
  System_Processor_Query: spec((ctx) => ({ output: { partition_mode: 'Z/VM', processor_array: processors(ctx) } }), false, 'any'),
  System_Performance_Information_Query: spec((ctx) => ({ output: { system_performance_information_data: performance(ctx) } }), false, 'any'),
  /**
   * The SSI cluster VMRELOCATE relocates within (config.ssiMembers), so both tell one story; no members:
   * not an SSI member, 4/3008. Members take slots in order, every one Joined (IBM's member states).
   */
  SSI_Query: spec((ctx, _target, p) => {
    const members = ctx.config.ssiMembers;
    if (members.length === 0) throw new SimFault(p.fn, 4, 3008, `${ctx.config.systemName} is not a member of an SSI cluster`);
    const heartbeat = ssiHeartbeat(new Date());
    return {
      output: {
        ssi_name: SSI_NAME, ssi_mode: 'Stable', cross_system_timeouts: 'Enabled', ssi_pdr: SSI_PDR,
        ssi_member_array: members.map((m, i) => `${i + 1} ${m} Joined ${heartbeat} ${heartbeat}`),
      },
    };
  }, false, 'any'),
};
