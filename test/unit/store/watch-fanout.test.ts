import type { Resource } from '../../../src/api/index.js';
import { GoneError } from '../../../src/errors.js';
import type { WatchEvent } from '../../../src/store/port.js';
import { createWatchFanout, type WatchSpec } from '../../../src/store/common/watch-fanout.js';

/** A change in these tests: its resourceVersion and the name of the object it touched. */
interface Change {
  rv: number;
  name: string;
}

const objectNamed = (name: string): Resource => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name }, spec: {} });

/** A spec that queues every change after `fromRv` whose name starts with `prefix`, delivered as MODIFIED. */
function spec(overrides: Partial<WatchSpec<Change, Change, Resource>> = {}, prefix = ''): WatchSpec<Change, Change, Resource> {
  return {
    kind: 'ZHost',
    fromRv: 0,
    compactedRv: 0,
    select: (change) => (change.name.startsWith(prefix) ? change : undefined),
    deliver: (change) => ({ type: 'MODIFIED', object: objectNamed(change.name) }),
    ...overrides,
  };
}

const names = (events: WatchEvent[]): string[] => events.map((event) => event.object.metadata.name);

async function next(watch: AsyncGenerator<WatchEvent>): Promise<string | undefined> {
  const step = await watch.next();
  return step.done ? undefined : step.value.object.metadata.name;
}

describe('watch fan-out shared by the embedded and SQLite stores', () => {
  it('delivers replay, then backlog, then published changes in order, only those the watch selects', async () => {
    const fanout = createWatchFanout<Change>(10);
    async function* replay(): AsyncGenerator<WatchEvent> {
      fanout.publish({ rv: 3, name: 'a-during-replay' });
      yield { type: 'ADDED', object: objectNamed('a-replayed') };
    }
    const watch = fanout.watch(spec({ backlog: [{ rv: 1, name: 'a-backlog' }], replay: replay() }, 'a-'));
    expect(await next(watch)).toBe('a-replayed');
    fanout.publish({ rv: 4, name: 'b-other' });
    fanout.publish({ rv: 5, name: 'a-live' });
    fanout.close();
    const rest: WatchEvent[] = [];
    for await (const event of watch) rest.push(event);
    expect(names(rest)).toEqual(['a-backlog', 'a-during-replay', 'a-live']);
  });

  it('answers a resourceVersion older than the kept history with GoneError on the first read', async () => {
    const fanout = createWatchFanout<Change>(10);
    const watch = fanout.watch(spec({ fromRv: 4, compactedRv: 7 }));
    const failure = watch.next();
    await expect(failure).rejects.toThrow(GoneError);
    await expect(failure).rejects.toThrow('resourceVersion 4 is too old: history starts after 7');
    const fromOldest = fanout.watch(spec({ fromRv: 7, compactedRv: 7 }));
    const first = fromOldest.next();
    fanout.publish({ rv: 8, name: 'eight' });
    expect((await first).value?.object.metadata.name).toBe('eight');
  });

  it('ends a watch that falls more than the queue limit behind with GoneError, after what it had queued', async () => {
    const fanout = createWatchFanout<Change>(2);
    const watch = fanout.watch(spec());
    const first = watch.next();
    fanout.publish({ rv: 1, name: 'one' });
    expect((await first).value?.object.metadata.name).toBe('one');
    for (let rv = 2; rv <= 5; rv += 1) fanout.publish({ rv, name: `n${rv}` });
    expect(await next(watch)).toBe('n2');
    expect(await next(watch)).toBe('n3');
    expect(await next(watch)).toBe('n4');
    await expect(watch.next()).rejects.toThrow('watch on ZHost fell more than 2 changes behind');
  });

  it('ends cleanly on abort and on close, and a watch opened after close ends at once', async () => {
    const fanout = createWatchFanout<Change>(10);
    const abort = new AbortController();
    const aborted = fanout.watch(spec({ signal: abort.signal }));
    const closed = fanout.watch(spec());
    const pendingAborted = aborted.next();
    const pendingClosed = closed.next();
    abort.abort();
    expect((await pendingAborted).done).toBe(true);
    fanout.close();
    expect((await pendingClosed).done).toBe(true);
    expect(fanout.closed).toBe(true);
    expect((await fanout.watch(spec()).next()).done).toBe(true);
  });

  it('stops offering changes to a watch whose consumer stopped reading', async () => {
    const fanout = createWatchFanout<Change>(10);
    let offered = 0;
    const watch = fanout.watch(spec({ select: (change) => ((offered += 1), change) }));
    const first = watch.next();
    fanout.publish({ rv: 1, name: 'one' });
    await first;
    await watch.return(undefined);
    fanout.publish({ rv: 2, name: 'two' });
    expect(offered).toBe(1);
  });
});
