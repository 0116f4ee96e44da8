import { setTimeout as delay } from 'node:timers/promises';
import { withBound } from '../../../src/util/time-bound.js';

describe('withBound', () => {
  it('aborts the call\'s signal once the bound passes', async () => {
    const call = (signal: AbortSignal): Promise<never> => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    await expect(withBound(20, call)).rejects.toThrow('aborted');
  });

  it('leaves the signal alone after a call that finished in time', async () => {
    let seen: AbortSignal | undefined;
    await expect(withBound(20, async (signal) => {
      seen = signal;
      return 'done';
    })).resolves.toBe('done');
    await delay(60);
    expect(seen?.aborted).toBe(false);
  });
});
