import { hostOf, type ZGuest } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { keyOf, type ObjectKey } from '../../store/port.js';
import type { FactBoard } from '../kit/index.js';
import { desiredUserid } from './definition.js';
import type { ObservedCache } from './observed-cache.js';
import { unreachableMessage, type ReachabilityStep } from './outage.js';

export interface OutageReporterDeps {
  /** where the outage is recorded for the ZHost and ZGuest reconcilers; absent: nothing is recorded */
  facts?: FactBoard;
  observed: ObservedCache;
  enqueue(key: ObjectKey): void;
  guests: { list(): ZGuest[] };
  log: Logger;
}

/**
 * Acts on the reachability steps of outage.ts: records the outage as a fact of the host (its ZHost is
 * enqueued by the board) and wakes every guest on it, whose reconcile then says Unknown; while it lasts
 * the guests' held observations are forgotten, so no reconcile reports a state from before the outage.
 * When the host answers again the fact goes and every guest is reconciled from the host.
 */
export function createOutageReporter(deps: OutageReporterDeps) {
  const guestsOf = (host: string) => deps.guests.list().filter((g) => hostOf(g) === host);

  function wake(host: string): void {
    for (const guest of guestsOf(host)) {
      deps.observed.invalidate(host, desiredUserid(guest));
      deps.enqueue(keyOf(guest));
    }
  }

  return {
    report(host: string, step: ReachabilityStep): void {
      if (step.next.unreachable && step.next.failingSince !== undefined) {
        if (step.transition === 'down') deps.log.warn({ host }, 'host SMAPI unreachable past the grace: its guests are Unknown');
        const since = new Date(step.next.failingSince).toISOString();
        deps.facts?.recordHost(host, { outage: { since, message: unreachableMessage(host, step.next.failingSince) } });
        if (step.transition === 'down') wake(host);
        else for (const guest of guestsOf(host)) deps.observed.invalidate(host, desiredUserid(guest));
      } else if (step.transition === 'up') {
        deps.log.info({ host }, 'host SMAPI answers again: reconciling its guests');
        deps.facts?.recordHost(host, { outage: undefined });
        wake(host);
      }
    },
  };
}
