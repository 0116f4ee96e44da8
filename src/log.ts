import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Field names whose values are credentials, at the top level or one object down. */
export const SECRET_FIELDS = ['password', 'passphrase', 'token', 'adminToken', 'privateKey', 'private_key', 'secret', 'apiKey'] as const;

/** The one root logger; components take children. Secrets never reach the output. */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings: LoggerOptions = {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: {
      paths: [...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]), 'req.headers["x-auth-token"]', 'req.headers["x-admin-token"]', 'req.headers.authorization'],
      censor: '[redacted]',
    },
    ...options,
  };
  return destination ? pino(settings, destination) : pino(settings);
}

/** A logger that writes nothing, for unit tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
