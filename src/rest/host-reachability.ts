/**
 * Live reads on a host whose SMAPI is declared unreachable (its ZHost says SmapiReachable=False,
 * controllers/zguest/outage.ts) answer the SMAPI-down envelope at once, as writes do
 * (write-and-wait.ts), instead of waiting out the SMAPI client's retries for an answer that cannot
 * come. Done once, where REST obtains a host's Hypervisor: its SMAPI calls first look at the ZHost,
 * which the process's store feed keeps current (one ZHost watch, no store read per call). Until the
 * outage is declared every call takes the normal path, retries included.
 */
import { unreachableSince, type ZHost } from '../api/index.js';
import type { Hypervisor } from '../hypervisor/index.js';
import type { StateStore } from '../store/port.js';
import type { HypervisorResolver } from './config.js';
import { feilongErrors } from './feilong-error.js';
import { RESYNC, type StoreFeed } from './store-feed.js';

/** Hypervisor members that make no SMAPI call (or not through SMAPI: the management guest). */
const UNGATED = new Set<PropertyKey>(['hostName', 'health', 'close', 'connection', 'mgmt']);
/** Members that group further SMAPI calls; every one of their methods answers a promise. */
const GROUPS = new Set<PropertyKey>(['vswitches', 'hostQueries', 'fcp', 'relocation']);

/** Every method of `target` first awaits `gate` (which throws to refuse the call). */
function gated<T extends object>(target: T, gate: () => Promise<void>, skip: (key: PropertyKey) => boolean): T {
  return new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key);
      if (skip(key) || value === undefined || value === null) return value;
      if (GROUPS.has(key) && typeof value === 'object') return gated(value, gate, () => false);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await gate();
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

/** `inner`, with each host's SMAPI calls refused at once while its ZHost declares it unreachable. */
export function createReachabilityGate(inner: HypervisorResolver, store: StateStore, feed: StoreFeed): HypervisorResolver {
  /** per host: when its outage was declared (undefined: reachable), known once `ready` settles */
  const hosts = new Map<string, { since?: string; ready: Promise<void> }>();

  function follow(host: string): { since?: string; ready: Promise<void> } {
    let entry = hosts.get(host);
    if (entry) return entry;
    const e: { since?: string; ready: Promise<void> } = { ready: Promise.resolve() };
    const read = async () => void (e.since = unreachableSince(await store.get<ZHost>('ZHost', { name: host })));
    // subscribed for the life of the process: one listener per host on the feed's one ZHost watch
    e.ready = feed.subscribe<ZHost>('ZHost', { name: host }, (news) => {
      if (news === RESYNC) void read().catch(() => undefined);
      else e.since = unreachableSince(news);
    }).then(read).catch(() => {
      // no feed (closing) or no store: the call takes the normal path; the next call tries again
      hosts.delete(host);
    });
    entry = e;
    hosts.set(host, entry);
    return entry;
  }

  async function gate(host: string): Promise<void> {
    const entry = follow(host);
    await entry.ready;
    if (entry.since) throw feilongErrors.smapiDown(`SMAPI of host ${host} is unreachable (since ${entry.since}); nothing was asked of it, try again when it answers`);
  }

  return {
    forHost(name: string): Hypervisor {
      return gated(inner.forHost(name), () => gate(name), (key) => UNGATED.has(key));
    },
  };
}
