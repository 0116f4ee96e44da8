/** console: the guest's console output (REST's get_console_output); --follow prints new lines as they come. */
import { hostOf } from '../../api/index.js';
import { requireGuest, type GlobalOptions } from './connect.js';
import { connectedTo } from './run.js';

export interface ConsoleOptions extends GlobalOptions {
  follow?: boolean;
  intervalMs: number;
}

/**
 * Pure: the lines of `next` not yet shown. The spool keeps its newest lines and drops the oldest, so
 * the longest tail of `shown` that starts `next` is what was seen already.
 */
export function computeNewLines(shown: string[], next: string[]): string[] {
  for (let k = Math.min(shown.length, next.length); k > 0; k -= 1) {
    let same = true;
    for (let i = 0; i < k && same; i += 1) same = shown[shown.length - k + i] === next[i];
    if (same) return next.slice(k);
  }
  return next;
}

const linesOf = (text: string) => text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

export async function runConsole(name: string, opts: ConsoleOptions): Promise<void> {
  await connectedTo(opts, async (b, out) => {
    const guest = await requireGuest(b, name);
    const host = hostOf(guest);
    let shown: string[] = [];
    for (;;) {
      const next = linesOf(await b.live.console(host, guest.spec.userid));
      for (const line of computeNewLines(shown, next)) out(line);
      shown = next;
      if (!opts.follow) return;
      await new Promise((r) => setTimeout(r, opts.intervalMs));
    }
  });
}
