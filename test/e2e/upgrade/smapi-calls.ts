/**
 * SMAPI calls as the simulated host received them, by function, split into reads and writes. A
 * function is a read when z/VM documents it as a query (name has `_Query` or starts with `Query_`) or it
 * only replays a reply (`Response_Recovery`); every other function counts as a write, Image_Console_Get
 * included (it closes the console spool). Unknown names are writes too, so the split errs on the strict side.
 */
export type CallCounts = Record<string, number>;

export function isReadFunction(fn: string): boolean {
  return fn.includes('_Query') || fn.startsWith('Query_') || fn === 'Response_Recovery';
}

/** The writes among the counts (function → count), empty when there were none. */
export function writesOf(counts: CallCounts): CallCounts {
  return Object.fromEntries(Object.entries(counts).filter(([fn]) => !isReadFunction(fn)));
}

export const total = (counts: CallCounts): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Counts calls as they arrive; `since()` answers the counts after a mark. */
export interface CallCounter {
  record(fn: string): void;
  mark(): void;
  since(): CallCounts;
}

export function createCallCounter(): CallCounter {
  let counts: CallCounts = {};
  return {
    record: (fn) => void (counts[fn] = (counts[fn] ?? 0) + 1),
    mark: () => void (counts = {}),
    since: () => ({ ...counts }),
  };
}

/** Counts of a sim `--call-log` file (one JSON line per request). */
export function countCallLog(text: string): CallCounts {
  const counts: CallCounts = {};
  for (const line of text.split('\n').filter(Boolean)) {
    const { fn } = JSON.parse(line) as { fn: string };
    counts[fn] = (counts[fn] ?? 0) + 1;
  }
  return counts;
}
