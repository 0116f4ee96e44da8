/**
 * What the observers beside the reconcilers see (the drift detector, the outage tracker, the orphan
 * sweeper, the shard coordinator), kept in the memory of the process that runs the host's controllers
 * (docs/architecture.md §7.6). An observer records a fact and the object is enqueued; the kind's own
 * reconciler is the one that turns facts into status. Facts are not kept across a restart: each
 * observer sees them again on its first look.
 */
import type { ZHostStatus } from '../../api/index.js';
import type { PowerState } from '../../hypervisor/index.js';

/** The host's SMAPI has given no answer for longer than the grace. */
export interface OutageFact {
  /** ISO time of the first look in a row that got no answer */
  since: string;
  message: string;
}

/** What one look of the drift detector found of a settled guest that status did not say. */
export interface DriftFact {
  /** the guest's power on the host, or that its userid is gone */
  finding: PowerState | 'missing';
  message: string;
  /** the uid of the guest it was seen for: a later guest of the same name starts without it */
  uid?: string;
}

export interface HostFacts {
  outage?: OutageFact;
  /** logged-on guests, from the drift detector's batched power query */
  activeGuests?: number;
  /** directory entries, when a look listed the directory */
  guestCount?: number;
  /** guests with our owner mark whose ZGuest is gone (the orphan sweeper) */
  orphanedGuests?: ZHostStatus['orphanedGuests'];
  /** the replica holding the host's shard lease */
  heldBy?: string;
}

type Listener = (name: string) => void;

export interface FactBoard {
  host(name: string): HostFacts;
  /** merges what an observer saw; tells the host's listeners when a value changed */
  recordHost(name: string, facts: Partial<HostFacts>): void;
  drift(guestKey: string): DriftFact | undefined;
  recordDrift(guestKey: string, fact: DriftFact): void;
  /** the reconcile that reported the drift (and its repair) is done with it */
  clearDrift(guestKey: string): void;
  /** the ZHost controller enqueues its host here */
  onHostChange(listener: Listener): void;
}

export function createFactBoard(): FactBoard {
  const hosts = new Map<string, HostFacts>();
  const drifts = new Map<string, DriftFact>();
  const listeners: Listener[] = [];
  return {
    host: (name) => ({ ...hosts.get(name) }),
    recordHost(name, facts) {
      const before = hosts.get(name) ?? {};
      const after = { ...before, ...facts };
      for (const k of Object.keys(after) as (keyof HostFacts)[]) if (after[k] === undefined) delete after[k];
      hosts.set(name, after);
      if (JSON.stringify(before) !== JSON.stringify(after)) for (const l of listeners) l(name);
    },
    drift: (key) => drifts.get(key),
    recordDrift: (key, fact) => void drifts.set(key, fact),
    clearDrift: (key) => void drifts.delete(key),
    onHostChange: (listener) => void listeners.push(listener),
  };
}
