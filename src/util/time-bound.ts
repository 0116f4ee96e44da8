/**
 * Runs `call` with a signal that aborts after `ms`, its timer cleared once the call is done. An
 * AbortSignal.timeout outlives the call and, firing later, builds an abort reason for nothing: one per
 * kube request and Lease call, a few per guest.
 */
export async function withBound<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(), ms);
  try {
    return await call(bound.signal);
  } finally {
    clearTimeout(timer);
  }
}
