/**
 * Requests the apiserver served, from its own counter (apiserver_request_total), for the per-object
 * verbs on ZGuests and Events: what a controller spends per guest. Lists and watches are per informer,
 * not per object, and are left out. Used by the requests-per-guest e2e test and the shard bench.
 */
import { kubectlOk } from './kubectl.js';

const PER_OBJECT_VERBS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const RESOURCES = new Set(['zguests', 'events']);

/** Counts by `<verb> <resource>[/<subresource>]`, e.g. `PUT zguests/status`; `verbs` as the apiserver names them (LIST, WATCH too); `resources` 'all': every resource. */
export async function perObjectRequests(kubeconfig: string, verbs: ReadonlySet<string> = PER_OBJECT_VERBS, resources: ReadonlySet<string> | 'all' = RESOURCES): Promise<Map<string, number>> {
  const text = await kubectlOk(['get', '--raw', '/metrics'], { kubeconfig });
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if ((resources !== 'all' && !resources.has(labels.resource ?? '')) || !verbs.has(labels.verb ?? '')) continue;
    const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** What grew between two readings. */
export function requestDelta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out[k] = v - (before.get(k) ?? 0);
  return out;
}

/** Reads until two readings a second apart agree (Events are written behind the reconciles), at most `rounds` times. */
export async function settledRequests(kubeconfig: string, rounds = 10): Promise<Map<string, number>> {
  let last = await perObjectRequests(kubeconfig);
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const again = await perObjectRequests(kubeconfig);
    if (JSON.stringify([...again]) === JSON.stringify([...last])) break;
    last = again;
  }
  return last;
}
