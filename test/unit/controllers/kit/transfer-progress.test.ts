import { createProgressWriter, formatBytes, toTransferStatus, type TransferStatus } from '../../../../src/controllers/kit/transfer-progress.js';
import { silentLogger } from '../../../../src/log.js';

const MiB = 1024 * 1024;

describe('image transfer progress', () => {
  it('reports bytes done, total, share and the rate since the start', () => {
    const s = toTransferStatus({ bytes: 512 * MiB, total: 2048 * MiB }, 0, 4000);
    expect(s).toMatchObject({ bytesDone: 512 * MiB, bytesTotal: 2048 * MiB, bytesPerSecond: 128 * MiB });
    expect(s.summary).toBe('512.0 MiB / 2.0 GiB (25%) at 128.0 MiB/s');
    expect(toTransferStatus({ bytes: 100 }, 0, 0).summary).toBe('100 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });

  it('names the operation in the sample and its summary', () => {
    expect(toTransferStatus({ bytes: 2 * MiB, total: 4 * MiB }, 0, 1000, 'export')).toMatchObject({
      operation: 'export', bytesDone: 2 * MiB, summary: 'export: 2.0 MiB / 4.0 MiB (50%) at 2.0 MiB/s',
    });
    expect(toTransferStatus({ bytes: 0, total: 4 * MiB }, 0, 0, 'deploy').summary).toBe('deploy: 0 B / 4.0 MiB (0%)');
  });

  it('writes the first sample at once, then at most one per interval, and the last one on flush', async () => {
    let t = 0;
    const written: TransferStatus[] = [];
    const w = createProgressWriter({ log: silentLogger(), intervalMs: 3000, now: () => t, write: async (p) => void written.push(p) });
    for (let i = 1; i <= 100; i++) {
      t = i * 100; // 100 samples over 10 s
      w.onProgress({ bytes: i * MiB, total: 100 * MiB });
      await Promise.resolve();
    }
    const during = written.length;
    expect(during).toBeGreaterThanOrEqual(3);
    expect(during).toBeLessThanOrEqual(4);
    await w.flush();
    expect(written.at(-1)).toMatchObject({ bytesDone: 100 * MiB, bytesTotal: 100 * MiB });
    expect(w.wrote()).toBe(true);
  });

  it('a failed write costs only that sample', async () => {
    let t = 0;
    let fail = true;
    const written: number[] = [];
    const w = createProgressWriter({
      log: silentLogger(), intervalMs: 1000, now: () => t,
      write: async (p) => {
        if (fail) throw new Error('conflict');
        written.push(p.bytesDone);
      },
    });
    w.onProgress({ bytes: 1 });
    await w.flush();
    fail = false;
    t = 2000;
    w.onProgress({ bytes: 2 });
    await w.flush();
    expect(written).toEqual([2]);
  });
});
