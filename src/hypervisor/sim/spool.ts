/**
 * Console spool: a per-guest console log appended deterministically (logon, IPL, pause, logoff),
 * bounded to `consoleMaxLines`. Text never depends on the wall clock; the virtual clock (call
 * sequence number) stamps each line so that repeated runs produce the same text.
 */
import type { SimContext } from './context.js';

export function appendConsole(ctx: SimContext, userid: string, ...lines: string[]): void {
  let spool = ctx.state.consoles.get(userid);
  if (!spool) {
    spool = [];
    ctx.state.consoles.set(userid, spool);
  }
  for (const line of lines) spool.push(`${String(ctx.state.seq).padStart(8, '0')} ${line}`);
  const excess = spool.length - ctx.config.consoleMaxLines;
  if (excess > 0) spool.splice(0, excess);
}

export function consoleText(ctx: SimContext, userid: string): string | undefined {
  const spool = ctx.state.consoles.get(userid);
  return spool && spool.length > 0 ? `${spool.join('\n')}\n` : undefined;
}

export function dropConsole(ctx: SimContext, userid: string): void {
  ctx.state.consoles.delete(userid);
}
