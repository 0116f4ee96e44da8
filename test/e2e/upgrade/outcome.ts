/**
 * What one upgrade step did, as both upgrade tests judge it: the SMAPI calls the host received (writes
 * among them), the guests that logged off or on again, the guests not Ready, and the status fields that
 * changed (status-kept.ts); and the line the tests print.
 */
import type { SimStateJson } from '../../../src/hypervisor/sim/index.js';
import type { KubeObject } from './release.js';
import { total, writesOf, type CallCounts } from './smapi-calls.js';
import { statusChanges } from './status-kept.js';

export interface StepOutcome {
  calls: CallCounts;
  writes: CallCounts;
  restarted: string[];
  notReady: string[];
  changed: string[];
}

/** The logon sequence of each running guest: a guest logged off, or off and on again, loses or changes it. */
export const logons = (s: SimStateJson): Map<string, number> => new Map(s.running.map((r) => [r.userid, r.logonSeq]));

const isReady = (g: KubeObject | undefined): boolean =>
  (g?.status?.conditions as { type: string; status: string }[] | undefined)?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export function stepOutcome(o: { captured: KubeObject[]; listed: KubeObject[]; calls: CallCounts; before: Map<string, number>; after: Map<string, number> }): StepOutcome {
  const byName = new Map(o.listed.map((g) => [`${g.metadata.namespace}/${g.metadata.name}`, g]));
  const now = (g: KubeObject) => byName.get(`${g.metadata.namespace}/${g.metadata.name}`);
  return {
    calls: o.calls,
    writes: writesOf(o.calls),
    restarted: [...o.before].filter(([userid, seq]) => o.after.get(userid) !== seq).map(([userid]) => userid),
    notReady: o.captured.filter((g) => !isReady(now(g))).map((g) => g.metadata.name),
    changed: o.captured.flatMap((g) => statusChanges(g.status, now(g)?.status).map((d) => `${g.metadata.name}: ${d}`)),
  };
}

/** The part that must be empty: no write, no restart, every guest Ready with its status. */
export const moved = (r: StepOutcome) => ({ writes: r.writes, restarted: r.restarted, notReady: r.notReady, changed: r.changed });
export const NOTHING_MOVED = { writes: {}, restarted: [], notReady: [], changed: [] };

export function describeOutcome(step: string, guests: number, r: StepOutcome): string {
  return `${step}: guests ${guests}, Ready ${guests - r.notReady.length}, SMAPI calls ${total(r.calls)}, SMAPI writes ${total(r.writes)}, ` +
    `guests restarted ${r.restarted.length}, statuses changed ${r.changed.length}\n  calls by function: ${JSON.stringify(r.calls)}`;
}
