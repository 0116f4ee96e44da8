/** What /proc says about processes on this (Linux) machine: RSS, CPU time, children by name. */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The fields of /proc/<pid>/stat after the command name (field 3, the state, is index 0). */
function statFields(pid: number, file = `/proc/${pid}/stat`): string[] {
  const stat = readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
}

/** User + system CPU-seconds the process has used so far (its own threads, not its children). */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** The ids of `parent`'s children whose command name is `comm` (e.g. etcd, started by the kube test env), or all of them. */
export function childrenNamed(parent: number, comm?: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      return Number(statFields(pid)[1]) === parent && (comm === undefined || readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** CPU-seconds the whole machine spent busy (every process, every core), from /proc/stat. */
export function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS;
}

/** A process's CPU-seconds split: user and system time, and the main thread's share (the rest: GC helpers, the libuv pool, the inspector). */
export interface CpuSplit {
  user: number;
  system: number;
  mainThread: number;
}

/** How many times the process's main thread has gone to sleep and been woken (its voluntary context switches). */
export function mainThreadWakeUps(pid: number): number {
  const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

export function cpuSplit(pid: number): CpuSplit {
  const fields = statFields(pid);
  const main = statFields(pid, `/proc/${pid}/task/${pid}/stat`);
  return { user: Number(fields[11]) / TICKS, system: Number(fields[12]) / TICKS, mainThread: (Number(main[11]) + Number(main[12])) / TICKS };
}
