import { hostOf, unreachableSince, type ZGuest, type ZHost } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { keyOf, type ObjectKey, type StateStore } from '../../store/port.js';
import { mergeConditions } from '../conditions.js';
import { desiredUserid } from './definition.js';
import type { ObservedCache } from './observed-cache.js';
import { hostReachabilityConditions, unreachableGuestStatus, unreachableMessage, type ReachabilityStep } from './outage.js';

export interface OutageReporterDeps {
  store?: StateStore;
  clock?: () => Date;
  observed: ObservedCache;
  enqueue(key: ObjectKey): void;
  guests: { list(): ZGuest[] };
  log: Logger;
}

/**
 * Acts on the reachability steps of outage.ts: while a host is unreachable every guest on it (also
 * one created meanwhile) says Unknown and forgets its held observation, so no reconcile reports a
 * state from before the outage; when it answers again every guest is reconciled from the host.
 */
export function createOutageReporter(deps: OutageReporterDeps) {
  const clock = deps.clock ?? (() => new Date());
  const guestsOf = (host: string) => deps.guests.list().filter((g) => hostOf(g) === host);

  async function writeHost(host: string, transition: 'down' | 'up', message: string): Promise<void> {
    const store = deps.store;
    const zhost = store && (await store.get<ZHost>('ZHost', { name: host }));
    // written once per transition: while it lasts, only a failed write is tried again
    if (!store || !zhost || (unreachableSince(zhost) !== undefined) === (transition === 'down')) return;
    const conditions = mergeConditions(zhost.status?.conditions, hostReachabilityConditions(transition, message), clock().toISOString(), zhost.status?.observedGeneration);
    await store.patchStatus('ZHost', { name: host }, { conditions, ...(transition === 'down' ? { phase: 'Unavailable' } : {}) });
  }

  async function markUnknown(host: string, message: string): Promise<void> {
    for (const guest of guestsOf(host)) {
      deps.observed.invalidate(host, desiredUserid(guest));
      const status = unreachableGuestStatus(guest, message, clock());
      if (status) await deps.store?.patchStatus('ZGuest', keyOf(guest), status);
    }
  }

  return {
    async report(host: string, step: ReachabilityStep): Promise<void> {
      try {
        if (step.next.unreachable && step.next.failingSince !== undefined) {
          const message = unreachableMessage(host, step.next.failingSince);
          if (step.transition === 'down') deps.log.warn({ host }, 'host SMAPI unreachable past the grace: its guests are Unknown');
          await writeHost(host, 'down', message);
          await markUnknown(host, message);
        } else if (step.transition === 'up') {
          deps.log.info({ host }, 'host SMAPI answers again: reconciling its guests');
          await writeHost(host, 'up', '');
          for (const guest of guestsOf(host)) {
            deps.observed.invalidate(host, desiredUserid(guest));
            deps.enqueue(keyOf(guest));
          }
        }
      } catch (err) {
        deps.log.warn({ err, host }, 'outage status not written; the next look tries again');
      }
    },
  };
}
