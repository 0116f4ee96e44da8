import { createSemaphore } from '../../../../src/hypervisor/smapi/semaphore.js';

describe('semaphore', () => {
  it('runs at most size tasks at once and serves waiters in order', async () => {
    const sem = createSemaphore(2);
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const task = (n: number) => sem.run(() => new Promise<void>((resolve) => gates.push(() => { order.push(n); resolve(); })));
    const all = [task(1), task(2), task(3), task(4)];
    await Promise.resolve();
    expect([sem.active, sem.waiting]).toEqual([2, 2]);
    while (gates.length) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    expect(order).toEqual([1, 2, 3, 4]);
    expect([sem.active, sem.waiting]).toEqual([0, 0]);
  });

  it('drops a waiter whose signal aborts, without running its task', async () => {
    const sem = createSemaphore(1);
    let release!: () => void;
    const first = sem.run(() => new Promise<void>((r) => { release = r; }));
    const ac = new AbortController();
    let ran = false;
    const second = sem.run(async () => { ran = true; }, ac.signal);
    ac.abort();
    await expect(second).rejects.toThrow('aborted');
    release();
    await first;
    expect(ran).toBe(false);
    expect([sem.active, sem.waiting]).toEqual([0, 0]);
  });

  it('rejects a size below one', () => {
    expect(() => createSemaphore(0)).toThrow(RangeError);
  });
});
