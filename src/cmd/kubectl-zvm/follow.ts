/**
 * Following what the controller does with a written resource: REST's write-and-wait decides when it
 * is done or failed; meanwhile a line is printed whenever its phase or status.progress summary changes
 * (capture, deploy, import, migrate), from the same shared watch.
 */
import type { Resource } from '../../api/index.js';
import { FeilongError, ModID } from '../../rest/feilong-error.js';
import { RESYNC, type StoreFeed } from '../../rest/store-feed.js';
import type { ObjectKey } from '../../store/port.js';
import type { Out } from './run.js';

interface Progressing {
  phase?: string;
  message?: string;
  progress?: { summary?: string };
}

/** Pure: the line a status gives, e.g. "Importing: import: 1.0 GiB / 2.0 GiB (50%) at 80.0 MiB/s". */
export function describeProgress(status: Progressing | undefined): string {
  const phase = status?.phase ?? 'Pending';
  const detail = status?.progress?.summary ?? status?.message;
  return detail ? `${phase}: ${detail}` : phase;
}

export interface Followed {
  feed: StoreFeed;
  kind: string;
  key: ObjectKey;
  /** how the lines start, e.g. zimage.zvm.dev/rhel9 */
  what: string;
  out: Out;
}

/**
 * Runs `work` with the feed already watching the object. The watch must be in place before the write:
 * a store starts a watch at the version it reads when watch() is called and holds writes until then,
 * while the feed's first re-read may come before that read, and a change in between would be missed.
 */
export async function whileWatching<T>(feed: StoreFeed, kind: string, key: ObjectKey, listener: (obj: Resource) => void, work: () => Promise<T>): Promise<T> {
  const unsubscribe = await feed.subscribe<Resource>(kind, key, (news) => void (news !== RESYNC && news && listener(news)));
  try {
    return await work();
  } finally {
    unsubscribe();
  }
}

/** Runs `work` (a write-and-wait), printing the object's progress as it changes until the work settles. */
export async function showProgressWhile<T extends Resource>(f: Followed, work: () => Promise<T>): Promise<T> {
  let shown = '';
  const show = (obj: Resource): void => {
    const line = describeProgress(obj.status as Progressing | undefined);
    if (line !== shown) f.out(`${f.what}: ${(shown = line)}`);
  };
  const done = await whileWatching(f.feed, f.kind, f.key, show, work);
  show(done); // the final state, even when the wait saw it before the line did
  return done;
}

/** The answer when a followed object is deleted while the verb waits. */
export const deletedWhileWaiting = (what: string) => (): FeilongError =>
  new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.sdkwsgi, rc: 404, rs: 1, errmsg: `${what} was deleted while waiting for it` });
