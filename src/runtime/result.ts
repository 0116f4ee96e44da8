import type { Resource } from '../api/index.js';
import type { ObjectKey } from '../store/port.js';

/**
 * The outcome of one reconcile (controller-runtime's contract, docs/code-conventions.md §1):
 * - done: converged, forget backoff.
 * - requeueAfter: poll again later (not an error).
 * - a thrown error: requeue with per-item exponential backoff.
 * - a thrown TerminalError: logged and counted, never retried until the object changes.
 */
export type Result = { requeueAfterMs?: number };

export const done = (): Result => ({});
export const requeueAfter = (ms: number): Result => ({ requeueAfterMs: ms });

export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export interface Reconciler {
  /** The kind whose changes trigger this reconciler. */
  kind: string;
  reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result>;
}

/** Maps an event on a watched object to the keys to reconcile (enqueue strategies). */
export type KeyMapper = (obj: Resource) => ObjectKey[];
