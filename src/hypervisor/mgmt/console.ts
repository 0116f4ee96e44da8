/**
 * A guest's console log, the way feilong collects it (docs/rest-interface.md §3.13 "Console"):
 * after the caller's Image_Console_Get has moved the guest's console spool file into this
 * management guest's reader, `vmcp spool reader class *`, `vmur list`, then
 * `vmur re -t -O <spoolid>` for each `<USERID> <spoolid> T CON …` file (a receive removes it).
 * The text is appended to `<logDir>/<USERID>/console.log` on the management guest and the last
 * CONSOLE_LOG_MAX bytes of that file are the answer — so a second call returns the earlier text
 * plus whatever was spooled since, as feilong's does; the file is kept at that size.
 */
import { posix } from 'node:path';
import { HypervisorError, InvalidInputError } from '../../errors.js';
import type { CallOptions } from '../port.js';
import type { MgmtContext } from './context.js';

export const CONSOLE_LOG_DIR = '/var/lib/zvmsdk/guests';
/** feilong's console_log_size default: 100 KB */
export const CONSOLE_LOG_MAX = 100 * 1024;

const USERID = /^[A-Z0-9@#$]{1,8}$/;

/** Spool ids of the console files of `userid` in a `vmur list` answer (other lines ignored). */
export function consoleSpoolIds(listing: string, userid: string): string[] {
  return listing.split('\n').flatMap((line) => {
    const [origin, id, cls, type] = line.trim().split(/\s+/);
    return origin === userid && id && /^\d+$/.test(id) && cls === 'T' && type === 'CON' ? [id] : [];
  });
}

/** The last `max` bytes of `text`, starting at a line when one begins inside them. */
export function tailOf(text: string, max: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return text;
  const tail = buf.subarray(buf.length - max).toString('utf8');
  const nl = tail.indexOf('\n');
  return nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail;
}

/** Deletes a guest's folder under the console log directory (its console.log); absent is fine. */
export function createConsoleForget(ctx: MgmtContext, logDir: string) {
  return async (userid: string): Promise<void> => {
    const u = userid.trim().toUpperCase();
    if (!USERID.test(u)) throw new InvalidInputError(`invalid userid '${userid}'`);
    await (await ctx.files()).removeTree(posix.join(logDir, u));
  };
}

export function createConsoleReader(ctx: MgmtContext, logDir: string) {
  // one collection per userid at a time: two would race for the same reader files and log
  const running = new Map<string, Promise<string>>();

  async function receiveNew(userid: string, opts?: CallOptions): Promise<string> {
    const signal = opts?.signal;
    const spool = await ctx.run([ctx.commands.vmcp, 'spool', 'reader', 'class', '*'], { signal });
    if (spool.exitCode !== 0) ctx.log.warn({ output: `${spool.stdout}${spool.stderr}`.trim() }, 'spool reader class * failed');
    const list = await ctx.run([ctx.commands.vmur, 'list'], { signal });
    if (list.exitCode !== 0) throw new HypervisorError('vmur list', list.exitCode, 0, `vmur list failed: ${`${list.stderr}${list.stdout}`.trim()}`);
    let text = '';
    for (const id of consoleSpoolIds(list.stdout, userid)) {
      const got = await ctx.run([ctx.commands.vmur, 're', '-t', '-O', id], { signal });
      // another reader (or a purge) took it first: nothing to add
      if (got.exitCode !== 0) ctx.log.warn({ userid, spoolId: id, stderr: got.stderr.trim() }, 'console spool file not received');
      else text += got.stdout.endsWith('\n') || got.stdout === '' ? got.stdout : `${got.stdout}\n`;
    }
    return text;
  }

  async function collect(userid: string, opts?: CallOptions): Promise<string> {
    const fresh = await receiveNew(userid, opts);
    const files = await ctx.files();
    const dir = posix.join(logDir, userid);
    const path = posix.join(dir, 'console.log');
    const old = (await files.statOrUndefined(path)) ? await files.readText(path) : '';
    if (fresh === '') return tailOf(old, CONSOLE_LOG_MAX);
    const log = tailOf(old + fresh, CONSOLE_LOG_MAX);
    await files.mkdirp(dir);
    await files.writeText(path, log);
    ctx.log.debug({ userid, bytes: fresh.length }, 'console output received');
    return log;
  }

  return function consoleOutput(userid: string, opts?: CallOptions): Promise<string> {
    const u = userid.trim().toUpperCase();
    if (!USERID.test(u)) return Promise.reject(new InvalidInputError(`invalid userid '${userid}'`));
    const next = (running.get(u) ?? Promise.resolve('')).catch(() => '').then(() => collect(u, opts));
    running.set(u, next);
    const forget = () => {
      if (running.get(u) === next) running.delete(u);
    };
    void next.then(forget, forget);
    return next;
  };
}
