/**
 * When a freshly started controller has looked at everything. A guest settled on its host is not
 * reconciled at start (zguest/predicates.ts); the drift detector looks at the host instead (one
 * Image_Status_Query per host and period) and enqueues every guest whose power state differs from its
 * spec. Settled: the kinds that reconcile at start have done so (their controller-runtime metrics),
 * and the drift detector has looked a few times, each look followed by the reconciles it asked for.
 */
import { waitUntil, type LoggedProcess } from '../../kube/processes.js';
import type { CallCounts } from './smapi-calls.js';

const LOOKS = 3;
export const driftLooks = (calls: CallCounts): number => calls.Image_Status_Query ?? 0;

/** Sum of controller_runtime_reconcile_total over results, by controller. */
export function reconcilesByController(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of metrics.matchAll(/^controller_runtime_reconcile_total\{controller="([^"]+)",result="[^"]+"\} (\d+)/gm)) {
    out[m[1] as string] = (out[m[1] as string] ?? 0) + Number(m[2]);
  }
  return out;
}

export interface SettleOptions {
  metricsUrl: string;
  /** reconciles each controller must reach */
  expect: Record<string, number>;
  /** the SMAPI calls the host has received since the start */
  calls: () => CallCounts;
  watch: LoggedProcess[];
}

export async function settled(o: SettleOptions): Promise<void> {
  await waitUntil(async () => {
    const res = await fetch(o.metricsUrl).catch(() => undefined);
    if (!res?.ok) return false;
    const seen = reconcilesByController(await res.text());
    return Object.entries(o.expect).every(([c, n]) => (seen[c] ?? 0) >= n) && driftLooks(o.calls()) >= LOOKS;
  }, { what: `reconciles of at least ${JSON.stringify(o.expect)} and ${LOOKS} drift looks at the host`, timeoutMs: 180_000, watch: o.watch, intervalMs: 500 });
  await new Promise((r) => setTimeout(r, 2_000)); // the reconciles the last look asked for
}

async function reconciles(metricsUrl: string, controller: string): Promise<number> {
  const res = await fetch(metricsUrl);
  return reconcilesByController(await res.text())[controller] ?? 0;
}

/**
 * Makes the controller reconcile every guest once more with its spec unchanged: a settled guest is
 * otherwise left to the drift detector, and an upgrade must also survive the new version's full
 * reconcile of an old guest. An annotation of no meaning to the operator is a user change to it
 * (zguest/predicates.ts), so each guest is reconciled; waits for that many reconciles.
 */
export async function reconcileEveryGuest(o: { metricsUrl: string; annotate: () => Promise<void>; guests: number; watch: LoggedProcess[] }): Promise<void> {
  const before = await reconciles(o.metricsUrl, 'zguest');
  await o.annotate();
  await waitUntil(async () => (await reconciles(o.metricsUrl, 'zguest')) >= before + o.guests,
    { what: `${o.guests} guest reconciles after the annotation`, timeoutMs: 180_000, watch: o.watch, intervalMs: 500 });
  await new Promise((r) => setTimeout(r, 2_000)); // a reconcile that requeued itself
}
