import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Logger = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * A request's logger that becomes pino's child (with the request id) at its first line of an enabled level.
 * Fastify makes a child per request, and most requests log nothing at info (the access line is at debug):
 * making it was ~5 % of a cheap request's CPU in the issue-38 profile.
 */
class LazyChild {
  #real?: Logger;
  constructor(private readonly parent: Logger, private readonly bindings: Bindings, private readonly opts: ChildLoggerOptions) {}

  #get(): Logger {
    return (this.#real ??= this.parent.child(this.bindings, this.opts) as Logger);
  }

  #log(level: Level, args: unknown[]): void {
    const current = this.#real ?? this.parent;
    if (current.isLevelEnabled && !current.isLevelEnabled(level)) return;
    (this.#get()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.#real ?? this.parent).level;
  }

  set level(value: string) {
    this.#get().level = value;
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#get().child(bindings, opts);
  }

  fatal(...args: unknown[]): void { this.#log('fatal', args); }
  error(...args: unknown[]): void { this.#log('error', args); }
  warn(...args: unknown[]): void { this.#log('warn', args); }
  info(...args: unknown[]): void { this.#log('info', args); }
  debug(...args: unknown[]): void { this.#log('debug', args); }
  trace(...args: unknown[]): void { this.#log('trace', args); }
  silent(): void {}
}

/** Fastify's childLoggerFactory: the request's child logger, made when first written to. */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChild(parent as Logger, bindings, opts) as unknown as FastifyBaseLogger;
}
