/**
 * What every kind's plan shares: the controller's steps run one by one against the adapter's dry run,
 * each with the calls it made, described for a reviewer (plan-describe.ts). The directory entry is
 * carried from call to call, so each call shows the statements it adds or removes.
 */
import type { DryRun } from '../../hypervisor/index.js';
import { describeCall, type DescribedCall } from './plan-describe.js';

export interface RecordedStep<S> {
  step: S;
  calls: DescribedCall[];
}

/** A plan of a kind other than ZGuest: its steps (host: whether the step reaches the host) and problems. */
export interface KindPlan {
  host: string;
  steps: (RecordedStep<{ op: string }> & { host: boolean })[];
  problems: string[];
  /** true when anything would be written (to the host or to the resource) */
  changes: boolean;
}

/** Runs each step (a store-only step may make no call) and answers the calls each one made. */
export async function recordSteps<S>(dry: DryRun, steps: S[], run: (step: S) => Promise<void>, directory?: string[]): Promise<RecordedStep<S>[]> {
  let entry = directory;
  const out: RecordedStep<S>[] = [];
  for (const step of steps) {
    const from = dry.calls.length;
    await run(step);
    const calls: DescribedCall[] = [];
    for (const raw of dry.calls.slice(from)) {
      const d = describeCall(raw, entry);
      entry = d.after;
      calls.push(d.call);
    }
    out.push({ step, calls });
  }
  return out;
}
