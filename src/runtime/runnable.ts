/**
 * Anything long-running the manager starts (controllers, informers, servers). Whether it needs the
 * leader lease is something it declares about itself; the manager does not decide that.
 */
export interface Runnable {
  name: string;
  /** Runs until the signal aborts, then stops gracefully; resolves once stopped, rejects on failure. */
  start(signal: AbortSignal): Promise<void>;
  /** default false: runs on every replica. */
  needsLeaderElection?: boolean;
}
