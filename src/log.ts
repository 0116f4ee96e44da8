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
 * per line was about 5 % of a busy controller's CPU (issue 23). The rest is written when the process exits.
 * The buffer is written synchronously too: an asynchronous write waits for a libuv worker, and a flush
 * due while one was still in flight was dropped, so the last lines of a start ("standalone mode ready")
 * stayed in the buffer until some later line pushed them out — on a loaded machine, never.
 */
function sharedStdout(): DestinationStream {
  return (stdout ??= bufferedStdout());
}

/** Exported for its test; processes use sharedStdout. */
export function bufferedStdout(flushMs = FLUSH_MS, fd = 1): DestinationStream {
  const dest = pino.destination({ dest: fd, sync: true, minLength: BUFFER_BYTES });
  // a timer only while a line waits: an idle process is not woken 10 times a second to find nothing
  let timer: NodeJS.Timeout | undefined;
  const flushDue = (): void => {
    timer = undefined;
    dest.flush();
  };
  const write = dest.write.bind(dest);
  dest.write = (line: string) => {
    const room = write(line);
    timer ??= setTimeout(flushDue, flushMs).unref();
    return room;
  };
  dest.on('close', () => clearTimeout(timer));
  // pino's own flush at exit is for asynchronous destinations only
  process.once('exit', () => {
    try {
      dest.flushSync();
    } catch {
      // stdout already closed: nothing more can be said
    }
  });
  return dest;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields a text line shows in its own place rather than as key=value. */
const PLACED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'component', 'controller', 'err']);

/**
 * One JSON log line as a person reads it at a terminal: `12:04:05.123 INFO  [zguest] applied  step=create`.
 * An error's stack is shown only at level error and above; below, its message.
 */
export function formatLine(line: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = Number(o.level);
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 23) : '';
  const who = o.component ?? o.controller;
  const fields = Object.entries(o).filter(([k]) => !PLACED.has(k)).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const err = o.err as { message?: string; stack?: string } | undefined;
  const errText = !err ? '' : level >= 50 && err.stack ? `\n    ${err.stack.split('\n').join('\n    ')}` : `  err=${err.message ?? ''}`;
  return `${time} ${(LEVEL_NAMES[level] ?? String(level)).padEnd(5)} ${who ? `[${String(who)}] ` : ''}${String(o.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}${errText}\n`;
}

/** Text at a terminal, JSON lines otherwise (a pipe, a file, a container log); ZVM_LOG_FORMAT (--log-format) decides when set. */
export function logFormat(): 'json' | 'text' {
  const asked = process.env.ZVM_LOG_FORMAT;
  if (asked === 'json' || asked === 'text') return asked;
  return process.stdout.isTTY ? 'text' : 'json';
}

function textStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(formatLine(line)) };
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
  return pino(settings, destination ?? (logFormat() === 'text' ? textStdout() : sharedStdout()));
}

/** A logger that writes nothing, for unit tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
