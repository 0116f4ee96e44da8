/** Runtime-settable fault injection and the completed-reply cache of the SMAPI test server. */

export interface SmapiFaults {
  /**
   * Close the connection right after the request id for the next N calls. The work still runs
   * and its reply is kept, as when a real reply is lost in transit: Response_Recovery finds it.
   */
  dropAfterRequestId: number;
  /** Answer rc 900 rs 8 (no worker available) to the next N calls without running them. */
  busy: number;
  /** Hold phase 2 back by `delayMs` for the next `delayCount` calls (to outlast a client timeout). */
  delayMs: number;
  delayCount: number;
}

export function noFaults(): SmapiFaults {
  return { dropAfterRequestId: 0, busy: 0, delayMs: 0, delayCount: 0 };
}

/** Takes one unit of a counted fault; true when the fault applies to this call. */
export function takeFault(faults: SmapiFaults, key: 'dropAfterRequestId' | 'busy' | 'delayCount'): boolean {
  if (faults[key] <= 0) return false;
  faults[key]--;
  return true;
}

/** Completed replies by request id, oldest evicted first (Map keeps insertion order). */
export function createReplyCache(capacity: number) {
  const replies = new Map<number, Buffer>();
  return {
    put(requestId: number, embedded: Buffer): void {
      replies.delete(requestId);
      replies.set(requestId, embedded);
      while (replies.size > capacity) replies.delete(replies.keys().next().value as number);
    },
    get(requestId: number): Buffer | undefined {
      return replies.get(requestId);
    },
  };
}
