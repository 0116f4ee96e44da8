import { setMaxListeners } from 'node:events';
import { ConflictError, TimeoutError, ZvmError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { realClock, sleep, type Clock } from './clock.js';
import type { Runnable } from './runnable.js';

/**
 * Runs runnables and stops them gracefully. Runnables that declare needsLeaderElection start only
 * while the elector says this replica leads; the others (informers, servers, probes) start at once so
 * that a standby is warm. Process signals are cmd/'s business: it calls stop().
 */
export interface LeaderCallbacks {
  /** the signal aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading(): void;
}

/** Campaigns until the signal aborts, calling back on gaining and losing leadership (Lease: a later issue). */
export interface LeaderElector {
  run(callbacks: LeaderCallbacks, signal: AbortSignal): Promise<void>;
}

export interface ManagerOptions {
  log?: Logger;
  runnables?: Runnable[];
  elector?: LeaderElector;
  clock?: Clock;
}

export interface Manager {
  /** Adds a runnable before start(). */
  add(runnable: Runnable): void;
  /**
   * Starts everything; resolves once stopped gracefully, rejects with the first runnable failure (or
   * a lost leadership), after stopping the rest.
   */
  start(): Promise<void>;
  /** Signals every runnable to stop and waits up to graceMs (default 30 s); TimeoutError names the laggards. */
  stop(graceMs?: number): Promise<void>;
  isLeader(): boolean;
}

interface Running {
  name: string;
  done: Promise<void>;
}

export function createManager(options: ManagerOptions = {}): Manager {
  const log = (options.log ?? silentLogger()).child({ component: 'manager' });
  const clock = options.clock ?? realClock;
  const runnables = [...(options.runnables ?? [])];
  const root = new AbortController();
  // every runnable and each of its waits listens on this one stop signal: many listeners, not a leak
  setMaxListeners(0, root.signal);
  const running = new Set<Running>();
  let started = false;
  let leading = false;
  let failure: unknown;

  function fail(err: unknown, name: string): void {
    if (failure === undefined) failure = err;
    if (root.signal.aborted) {
      log.error({ err, runnable: name }, 'runnable failed while stopping');
      return;
    }
    log.error({ err, runnable: name }, 'runnable failed; stopping the manager');
    root.abort();
  }

  function launch(name: string, run: () => Promise<void>): void {
    if (root.signal.aborted) return;
    const entry: Running = {
      name,
      done: Promise.resolve()
        .then(run)
        .then(
          () => log.debug({ runnable: name }, 'runnable stopped'),
          (err: unknown) => fail(err, name),
        )
        .finally(() => running.delete(entry)),
    };
    running.add(entry);
  }

  function launchRunnable(runnable: Runnable, signal: AbortSignal): void {
    log.info({ runnable: runnable.name }, 'starting runnable');
    launch(runnable.name, () => runnable.start(signal));
  }

  function campaign(elector: LeaderElector, leaders: Runnable[]): void {
    const callbacks: LeaderCallbacks = {
      onStartedLeading(leaderSignal) {
        leading = true;
        log.info({ runnables: leaders.map((r) => r.name) }, 'became leader');
        const signal = AbortSignal.any([root.signal, leaderSignal]);
        for (const runnable of leaders) launchRunnable(runnable, signal);
      },
      onStoppedLeading() {
        leading = false;
        // Another replica may lead now: carrying on would mean two writers to z/VM.
        if (!root.signal.aborted) fail(new ZvmError('UNAVAILABLE', 'leader election lost'), 'leader-election');
      },
    };
    launch('leader-election', () => elector.run(callbacks, root.signal));
  }

  async function settleAll(): Promise<void> {
    // Bounded: nothing launches once the root signal has aborted, so the set only shrinks.
    for (let round = 0; round < 1000 && running.size > 0; round += 1) {
      await Promise.allSettled([...running].map((r) => r.done));
    }
  }

  return {
    add(runnable) {
      if (started) throw new ConflictError(`runnable ${runnable.name} added after the manager started`);
      runnables.push(runnable);
    },
    async start() {
      if (started) throw new ConflictError('manager already started');
      started = true;
      const leaders = runnables.filter((r) => r.needsLeaderElection === true);
      for (const runnable of runnables) {
        if (!leaders.includes(runnable) || !options.elector) launchRunnable(runnable, root.signal);
      }
      if (options.elector && leaders.length > 0) campaign(options.elector, leaders);
      await new Promise<void>((resolve) => {
        if (root.signal.aborted) resolve();
        else root.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await settleAll();
      if (failure !== undefined) throw failure;
      log.info('manager stopped');
    },
    async stop(graceMs = 30_000) {
      log.info({ graceMs, running: running.size }, 'stopping');
      root.abort();
      const timeout = new AbortController();
      const settled = settleAll().then(() => timeout.abort());
      await Promise.race([settled, sleep(graceMs, timeout.signal, clock)]);
      timeout.abort();
      if (running.size > 0) {
        const names = [...running].map((r) => r.name);
        log.warn({ runnables: names }, 'runnables did not stop within the grace period');
        throw new TimeoutError(`runnables did not stop within ${graceMs} ms: ${names.join(', ')}`);
      }
    },
    isLeader: () => leading,
  };
}
