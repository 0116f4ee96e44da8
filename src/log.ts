import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Field names whose values are credentials, at the top level or one object down. */
export const SECRET_FIELDS = ['password', 'passphrase', 'token', 'adminToken', 'privateKey', 'private_key', 'secret', 'apiKey'] as const;

/** Lines wait in the stdout buffer at most this long (a reader waiting for a port line sees it soon), or until it holds BUFFER_BYTES. */
export const FLUSH_MS = 100;
const BUFFER_BYTES = 4096;

let stdout: DestinationStream | undefined;

/**
 * Stdout through a buffer, one per process so that its loggers' lines keep their order: one write(2)
 * per line was about 5 % of a busy controller's CPU (issue 23). pino writes the buffer out
 * synchronously when the process exits.
 */
function sharedStdout(): DestinationStream {
  return (stdout ??= bufferedStdout());
}

/** Exported for its test; processes use sharedStdout. */
export function bufferedStdout(flushMs = FLUSH_MS, fd = 1): DestinationStream {
  const dest = pino.destination({ dest: fd, sync: false, minLength: BUFFER_BYTES });
  let pending = false;
  const write = dest.write.bind(dest);
  dest.write = (line: string) => {
    pending = true;
    return write(line);
  };
  const timer = setInterval(() => {
    if (!pending) return;
    pending = false;
    dest.flush();
  }, flushMs).unref();
  dest.on('close', () => clearInterval(timer));
  return dest;
}

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
  return pino(settings, destination ?? sharedStdout());
}

/** A logger that writes nothing, for unit tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
