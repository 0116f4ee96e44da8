import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** The one root logger; components take children. Secrets never reach the output. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({
    level: process.env.LOG_LEVEL ?? 'info',
    redact: {
      paths: ['password', '*.password', 'token', '*.token', 'adminToken', '*.adminToken', 'req.headers["x-auth-token"]', 'req.headers["x-admin-token"]'],
      censor: '[redacted]',
    },
    ...options,
  });
}

/** A logger that writes nothing, for unit tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
