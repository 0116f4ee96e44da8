import type { Logger } from '../log.js';

/** SIGTERM/SIGINT run stop once, then exit 0 (or 1 when stopping failed). */
export function exitOnSignals(stop: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const onSignal = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
