import type { Hypervisor } from '../../src/hypervisor/port.js';

/** Stands for the controller process dying mid-reconcile; not a HypervisorError, so it is rethrown. */
export class InjectedCrash extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InjectedCrash';
  }
}

export interface CrashPlan {
  /** 1-based index of the mutating call that crashes, counted from when the plan is armed */
  call: number;
  /** before: the host never sees the call; after: the host applied it, the caller never learns */
  when: 'before' | 'after';
}

const MUTATING = new Set<string>([
  'createGuest', 'deleteGuest', 'addDisk', 'removeDisk', 'start', 'stop', 'softStop', 'pause', 'unpause',
  'setDirectoryCpus', 'setDirectoryShare', 'defineActiveCpus', 'rewriteDirectory', 'createNic', 'deleteNic', 'coupleNic', 'uncoupleNic',
]);

export interface CrashingHypervisor {
  hv: Hypervisor;
  /** every mutating call that reached the host, e.g. 'addDisk LINUX01 0101' */
  calls: string[];
  /** arms one crash at the Nth mutating call from now */
  arm(plan: CrashPlan): void;
}

function describeArgs(args: unknown[]): string {
  return args
    .filter((a) => typeof a === 'string' || typeof a === 'number' || (typeof a === 'object' && a !== null && ('userid' in a || 'vdev' in a)))
    .map((a) => (typeof a === 'object' ? String((a as { userid?: string; vdev?: string }).userid ?? (a as { vdev: string }).vdev) : String(a)))
    .join(' ');
}

/** Wraps any Hypervisor (the fake or the simulator behind the SMAPI adapter) with crash injection. */
export function withCrashes(inner: Hypervisor): CrashingHypervisor {
  const calls: string[] = [];
  let armed: { at: number; when: CrashPlan['when'] } | undefined;
  const hv = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !MUTATING.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const label = `${prop} ${describeArgs(args)}`.trim();
        const crash = armed && armed.at === calls.length + 1 ? armed : undefined;
        if (crash) armed = undefined;
        if (crash?.when === 'before') throw new InjectedCrash(`crash before ${label}`);
        const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        calls.push(label);
        if (crash?.when === 'after') throw new InjectedCrash(`crash after ${label}`);
        return result;
      };
    },
  });
  return { hv, calls, arm: (plan) => void (armed = { at: calls.length + plan.call, when: plan.when }) };
}
