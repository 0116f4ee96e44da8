import type { TransferProgress } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { ObjectKey, StateStore } from '../../store/port.js';

/** Which transfer a progress sample belongs to: a ZImage's import, capture or export, a ZGuest's deploy. */
export type TransferOperation = 'import' | 'capture' | 'export' | 'deploy';

/** What status.progress of a ZImage (and of a guest's image deploy) shows. */
export interface TransferStatus {
  operation?: TransferOperation;
  bytesDone: number;
  bytesTotal?: number;
  bytesPerSecond?: number;
  summary: string;
  updatedAt: string;
}

/** At most one status write per this long: a transfer of gigabytes must not write thousands of times. */
export const PROGRESS_WRITE_INTERVAL_MS = 3000;

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Pure: the status form of one progress sample, the rate measured since the first sample. */
export function toTransferStatus(p: TransferProgress, startedAt: number, now: number, operation?: TransferOperation): TransferStatus {
  const seconds = (now - startedAt) / 1000;
  const rate = seconds > 0 ? Math.round(p.bytes / seconds) : undefined;
  const total = p.total !== undefined && p.total > 0 ? p.total : undefined;
  const share = total ? ` (${Math.min(100, Math.floor((p.bytes / total) * 100))}%)` : '';
  const summary = `${operation ? `${operation}: ` : ''}${formatBytes(p.bytes)}${total ? ` / ${formatBytes(total)}` : ''}${share}${rate !== undefined ? ` at ${formatBytes(rate)}/s` : ''}`;
  return { ...(operation ? { operation } : {}), bytesDone: p.bytes, ...(total ? { bytesTotal: total } : {}), ...(rate !== undefined ? { bytesPerSecond: rate } : {}), summary, updatedAt: new Date(now).toISOString() };
}

export interface ProgressWriter {
  onProgress(p: TransferProgress): void;
  /** Waits for a write in flight and writes the last sample if it was held back; call when the transfer ends. */
  flush(): Promise<void>;
  /** true once anything was written (the caller's copy of the object is then stale) */
  wrote(): boolean;
}

/**
 * Create it when the transfer starts. Throttles transfer progress into status writes: the first sample at once, then at most one per
 * interval; a write never overlaps another, and a failed write only costs that sample.
 */
export function createProgressWriter(o: {
  write(p: TransferStatus): Promise<void>; log: Logger; operation?: TransferOperation; intervalMs?: number; now?: () => number;
}): ProgressWriter {
  const now = o.now ?? Date.now;
  const interval = o.intervalMs ?? PROGRESS_WRITE_INTERVAL_MS;
  // created when the transfer starts: a transfer reported in one sample still gets its rate
  const startedAt = now();
  let lastWrite = -Infinity;
  let held: TransferProgress | undefined;
  let inFlight: Promise<void> | undefined;
  let written = false;

  function send(p: TransferProgress): void {
    const t = now();
    lastWrite = t;
    held = undefined;
    inFlight = o.write(toTransferStatus(p, startedAt, t, o.operation))
      .then(() => void (written = true))
      .catch((err: unknown) => o.log.debug({ err }, 'progress not written'))
      .finally(() => void (inFlight = undefined));
  }

  return {
    onProgress(p) {
      if (inFlight || now() - lastWrite < interval) {
        held = p;
        return;
      }
      send(p);
    },
    async flush() {
      await inFlight;
      if (held) send(held);
      await inFlight;
    },
    wrote: () => written,
  };
}

/**
 * A writer into status.progress of one object, as a merge patch without a resourceVersion: it never
 * conflicts with (nor replaces) the rest of the status. Whoever writes the whole status afterwards
 * must start from a fresh read when wrote() says so.
 */
export function statusProgressWriter(o: { store: StateStore; kind: string; key: ObjectKey; operation: TransferOperation; log: Logger; intervalMs?: number }): ProgressWriter {
  return createProgressWriter({
    log: o.log, operation: o.operation, intervalMs: o.intervalMs,
    write: (p) => o.store.patchStatus(o.kind, o.key, { progress: p }).then(() => undefined),
  });
}

/**
 * A writer into one annotation of an object (a metadata merge patch), for a process that writes no
 * status (REST's image export): the owner's reconciler copies it into status.progress.
 */
export function annotationProgressWriter(o: { store: StateStore; kind: string; key: ObjectKey; annotation: string; operation: TransferOperation; log: Logger; intervalMs?: number }): ProgressWriter {
  return createProgressWriter({
    log: o.log, operation: o.operation, intervalMs: o.intervalMs,
    write: (p) => o.store.patch(o.kind, o.key, { metadata: { annotations: { [o.annotation]: JSON.stringify(p) } } }).then(() => undefined),
  });
}
