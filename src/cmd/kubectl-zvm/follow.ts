/**
 * Waiting for a resource the controller works on, showing where it stands: a line whenever its phase
 * or status.progress summary changes (capture, deploy, import, migrate), until it is done or fails.
 */
import type { Resource } from '../../api/index.js';
import { NotFoundError, TimeoutError, ZvmError } from '../../errors.js';
import { waitForObject } from '../../rest/guests/wait.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import type { Out } from './run.js';

interface Progressing {
  phase?: string;
  message?: string;
  progress?: { summary?: string };
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/** Pure: the line a status gives, e.g. "Importing: import: 1.0 GiB / 2.0 GiB (50%) at 80.0 MiB/s". */
export function describeProgress(status: Progressing | undefined): string {
  const phase = status?.phase ?? 'Pending';
  const detail = status?.progress?.summary ?? status?.message;
  return detail ? `${phase}: ${detail}` : phase;
}

export interface FollowOptions<T extends Resource> {
  store: StateStore;
  kind: string;
  key: ObjectKey;
  /** the value once done; throw to fail; undefined while under way */
  finished(obj: T): boolean;
  /** the error when the object says it failed */
  failure(obj: T): string | undefined;
  timeoutMs: number;
  out: Out;
  what: string;
}

export async function followResource<T extends Resource>(o: FollowOptions<T>): Promise<T> {
  let shown = '';
  const outcome = await waitForObject<T, T>(o.store, o.kind, o.key, (obj) => {
    if (!obj) throw new NotFoundError(`${o.what} was deleted`);
    const line = describeProgress(obj.status as Progressing | undefined);
    if (line !== shown) o.out(`${o.what}: ${(shown = line)}`);
    const failed = o.failure(obj);
    if (failed) throw new ZvmError('HYPERVISOR', `${o.what} failed: ${failed}`);
    return o.finished(obj) ? obj : undefined;
  }, { timeoutMs: o.timeoutMs, pollIntervalMs: 500 });
  if (!outcome.done) throw new TimeoutError(`${o.what} did not finish within ${Math.round(o.timeoutMs / 1000)} s; it goes on in the background`);
  return outcome.value;
}

/** The Synced=False message of a resource, when its last reconcile failed for good. */
export function failedPhase(status: Progressing | undefined): string | undefined {
  if (status?.phase !== 'Failed') return undefined;
  const cond = status.conditions?.find((c) => c.status === 'False' && c.message);
  return cond?.message ?? status.message ?? 'failed';
}
