/**
 * Upload progress: on a terminal one bar redrawn in place (bytes, rate, ETA); otherwise plain lines,
 * one per tenth of the file, so a log or a CI job gets a bounded, readable record.
 */
import { toTransferStatus } from '../../controllers/index.js';

export interface ProgressSample {
  bytes: number;
  total: number;
  startedAt: number;
  now: number;
}

const BAR_WIDTH = 30;
/** On a terminal, at most one redraw per this long. */
const REDRAW_MS = 100;
/** Plain lines: one each time this share of the file (in percent) is passed. */
const LINE_STEP = 10;

function eta(s: ProgressSample): string {
  const seconds = (s.now - s.startedAt) / 1000;
  if (s.bytes <= 0 || seconds <= 0 || s.bytes >= s.total) return '';
  const left = Math.ceil(((s.total - s.bytes) / s.bytes) * seconds);
  return ` ETA ${left >= 60 ? `${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s` : `${left}s`}`;
}

/** Pure: "upload: 20.0 MiB / 200.0 MiB (10%) at 41.2 MiB/s ETA 5s". */
export function formatProgressLine(s: ProgressSample): string {
  return `upload: ${toTransferStatus({ bytes: s.bytes, total: s.total }, s.startedAt, s.now).summary}${eta(s)}`;
}

/** Pure: the bar a terminal shows. */
export function formatProgressBar(s: ProgressSample): string {
  const filled = s.total > 0 ? Math.min(BAR_WIDTH, Math.floor((s.bytes / s.total) * BAR_WIDTH)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${formatProgressLine(s).replace(/^upload: /, '')}`;
}

/** Pure: the plain-line step a sample falls in (a line is printed when it grows). */
export function lineStep(bytes: number, total: number): number {
  return total > 0 ? Math.floor(((bytes / total) * 100) / LINE_STEP) : 0;
}

export interface ProgressReporter {
  update(bytes: number): void;
  done(bytes: number): void;
}

export function createProgressReporter(total: number, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): ProgressReporter {
  const startedAt = now();
  const tty = Boolean(stream.isTTY);
  let lastDraw = 0;
  let lastStep = -1;
  const sample = (bytes: number): ProgressSample => ({ bytes, total, startedAt, now: now() });
  function show(bytes: number, final: boolean): void {
    if (tty) {
      if (!final && now() - lastDraw < REDRAW_MS) return;
      lastDraw = now();
      stream.write(`\r${formatProgressBar(sample(bytes))}\u001b[K${final ? '\n' : ''}`);
      return;
    }
    // the last line is always that of the whole file: done() after the final update repeats nothing
    const step = lineStep(bytes, total);
    if (step === lastStep) return;
    lastStep = step;
    stream.write(`${formatProgressLine(sample(bytes))}\n`);
  }
  return { update: (bytes) => show(bytes, false), done: (bytes) => show(bytes, true) };
}
