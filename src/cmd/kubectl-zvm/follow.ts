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

/** Runs `work` (a write-and-wait), printing the object's progress as it changes until the work settles. */
export async function showProgressWhile<T extends Resource>(f: Followed, work: () => Promise<T>): Promise<T> {
  let shown = '';
  const show = (obj: Resource): void => {
    const line = describeProgress(obj.status as Progressing | undefined);
    if (line !== shown) f.out(`${f.what}: ${(shown = line)}`);
  };
  const unsubscribe = await f.feed.subscribe<Resource>(f.kind, f.key, (news) => void (news !== RESYNC && news && show(news)));
  try {
    const done = await work();
    show(done); // the final state, even when the wait saw it before the line did
    return done;
  } finally {
    unsubscribe();
  }
}

/** The answer when a followed object is deleted while the verb waits. */
export const deletedWhileWaiting = (what: string) => (): FeilongError =>
  new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.sdkwsgi, rc: 404, rs: 1, errmsg: `${what} was deleted while waiting for it` });
