import { silentLogger } from '../../../src/log.js';
import { createGroupCommit } from '../../../src/durable/index.js';

/** A write the test completes by hand, recording the state each write captured when it began. */
function manualWrites(state: { value: number }) {
  const captured: number[] = [];
  const finishers: Array<(err?: Error) => void> = [];
  const write = (): Promise<void> => {
    captured.push(state.value);
    return new Promise<void>((resolve, reject) => finishers.push((err) => (err ? reject(err) : resolve())));
  };
  return { captured, finishers, write };
}

describe('group commit', () => {
  it('serves a burst of concurrent flushes with one write after the one in flight', async () => {
    const state = { value: 1 };
    const writes = manualWrites(state);
    const batcher = createGroupCommit({ write: writes.write, log: silentLogger() });
    const first = batcher.flush();
    const burst = Array.from({ length: 100 }, (_, i) => {
      state.value = i + 2;
      return batcher.flush();
    });
    expect(writes.captured).toEqual([1]);
    writes.finishers[0]();
    await first;
    await Promise.resolve();
    expect(writes.captured).toEqual([1, 101]);
    writes.finishers[1]();
    await Promise.all(burst);
    expect(writes.captured).toHaveLength(2);
  });

  it('does not resolve a flush until a write that began after it has finished', async () => {
    const state = { value: 1 };
    const writes = manualWrites(state);
    const batcher = createGroupCommit({ write: writes.write, log: silentLogger() });
    void batcher.flush();
    state.value = 2;
    let resolved = false;
    const second = batcher.flush().then(() => {
      resolved = true;
    });
    writes.finishers[0]();
    await new Promise((r) => setImmediate(r));
    expect(resolved).toBe(false);
    writes.finishers[1]();
    await second;
    expect(writes.captured).toEqual([1, 2]);
  });

  it('rejects the callers of a failed write with UNAVAILABLE and keeps serving later ones', async () => {
    const writes = manualWrites({ value: 0 });
    const batcher = createGroupCommit({ write: writes.write, log: silentLogger() });
    const failed = batcher.flush();
    writes.finishers[0](new Error('disk full'));
    await expect(failed).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    const later = batcher.flush();
    writes.finishers[1]();
    await expect(later).resolves.toBeUndefined();
  });
});
