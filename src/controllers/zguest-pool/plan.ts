import { DEFAULT_HOST, TEMPLATE_HASH_LABEL, type ZGuest, type ZGuestPool, type ZHost } from '../../api/index.js';
import {
  byRemovalOrder, indexOf, isGuestConflicted, isGuestDeleting, isGuestFailed, isGuestReady, maxIndex, poolUserid, templateHash,
  type NewGuest,
} from './guests.js';
import { hostRooms, noRoomMessage, pickHost, reserve, type GuestSize, type HostRoom } from './placement.js';

export interface PoolPlanInput {
  pool: ZGuestPool;
  /** the guests the pool owns, those being deleted included */
  guests: ZGuest[];
  /** HOST/USERID of every ZGuest in the store: a new userid never repeats one of them */
  taken: ReadonlySet<string>;
  /** the class revision new guests take (recorded in status once known) */
  classRevision: number | undefined;
  now: Date;
  /** where new guests may go: host names, their ZHosts (capacity facts), every ZGuest in the store, the template's size; default the pool's hosts, unbounded */
  placement?: Placement;
}

export interface Placement {
  hosts: string[];
  zhosts: ZHost[];
  guests: ZGuest[];
  size: GuestSize;
}

export const DEFAULT_PROGRESS_DEADLINE_S = 600;

export interface PoolPlan {
  hash: string;
  creates: NewGuest[];
  deletes: ZGuest[];
  /** the counter after this plan's creates: recorded before any of them is written */
  lastIndex: number;
  /** why the pool cannot go on (a new guest failed, the userids ran out); it holds until a person acts */
  stalled?: { reason: 'RolloutStalled' | 'UseridsExhausted' | 'NoCapacity'; message: string };
  /** a rollout is under way: guests from an older template remain */
  rollingOut: boolean;
}

/**
 * Pure: which guests to create and delete. Without a rollout it scales to replicas (not-Ready guests
 * go first, then the newest). In a rollout an old guest goes only while the Ready guests stay at or
 * above replicas - maxUnavailable, and a new one comes only while the guests stay at or below
 * replicas + maxSurge: each new guest is Ready before the next old one goes. A failed new guest
 * stops the rollout; paused holds everything.
 */
export function planPool(input: PoolPlanInput): PoolPlan {
  const { pool } = input;
  const hash = templateHash(pool, input.classRevision);
  const live = input.guests.filter((g) => !isGuestDeleting(g));
  const conflicted = live.filter(isGuestConflicted);
  const members = live.filter((g) => !isGuestConflicted(g));
  const current = members.filter((g) => g.metadata.labels?.[TEMPLATE_HASH_LABEL] === hash);
  const old = members.filter((g) => !current.includes(g));
  const lastIndex = Math.max(pool.status?.lastIndex ?? 0, ...input.guests.map(indexOf));
  const base: PoolPlan = { hash, creates: [], deletes: [], lastIndex, rollingOut: old.length > 0 };
  if (pool.spec.paused) return base;

  const stalled = old.length > 0 ? rolloutStall(pool, current, input.now) : undefined;
  // a guest whose userid someone else holds is never ours: it goes, and the counter moves past it
  const deletes = [...conflicted];
  const replicas = pool.spec.replicas;
  let count: number;
  if (old.length === 0) {
    const excess = members.length - replicas;
    if (excess > 0) deletes.push(...[...members].sort(byRemovalOrder).slice(0, excess));
    count = Math.max(0, replicas - members.length);
  } else {
    const gone = stalled ? [] : rolloutDeletes(pool, members, old);
    deletes.push(...gone);
    const total = members.length - gone.length;
    const surge = pool.spec.maxSurge ?? 0;
    count = stalled ? 0 : Math.max(0, Math.min(replicas - current.length, replicas + surge - total));
    const extraCurrent = current.length - replicas;
    if (extraCurrent > 0) deletes.push(...[...current].sort(byRemovalOrder).slice(0, extraCurrent));
  }
  const placement = input.placement ?? { hosts: pool.spec.hosts ?? [DEFAULT_HOST], zhosts: [], guests: [], size: {} };
  const allocated = allocate(pool, count, lastIndex, input.taken, hostRooms(placement.hosts, placement.zhosts, placement.guests, members, placement.size), placement.size);
  return { ...base, ...allocated, deletes, stalled: stalled ?? allocated.stalled };
}

/** A new guest that failed, or is not Ready past the progress deadline (an image that never comes), stops the rollout. */
function rolloutStall(pool: ZGuestPool, current: ZGuest[], now: Date): PoolPlan['stalled'] {
  const failed = current.find(isGuestFailed);
  const hint = 'the rollout waits: fix the template, or delete the guest to retry';
  if (failed) return { reason: 'RolloutStalled', message: `new guest ${failed.metadata.name} failed; ${hint}` };
  const deadlineMs = (pool.spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_S) * 1000;
  const late = current.find((g) => !isGuestReady(g) && now.getTime() - Date.parse(g.metadata.creationTimestamp ?? '') > deadlineMs);
  if (late) return { reason: 'RolloutStalled', message: `new guest ${late.metadata.name} is not Ready after ${deadlineMs / 1000} s; ${hint}` };
  return undefined;
}

/** Old guests that may go now: not-Ready ones freely, Ready ones while enough Ready guests remain. */
function rolloutDeletes(pool: ZGuestPool, members: ZGuest[], old: ZGuest[]): ZGuest[] {
  const unavailable = pool.spec.maxUnavailable ?? 1;
  const minReady = pool.spec.replicas - (unavailable === 0 && !(pool.spec.maxSurge ?? 0) ? 1 : unavailable);
  let ready = members.filter(isGuestReady).length;
  const out: ZGuest[] = [];
  for (const g of [...old].sort(byRemovalOrder)) {
    if (isGuestReady(g)) {
      if (ready - 1 < minReady) break;
      ready--;
    }
    out.push(g);
  }
  return out;
}

/**
 * Counter values past every one used, skipping userids the store holds; each guest to the host with
 * the fewest pool guests that has room for it (placement.ts). No host with room: the pool says so.
 */
function allocate(pool: ZGuestPool, count: number, lastIndex: number, taken: ReadonlySet<string>, initial: HostRoom[], size: GuestSize): Pick<PoolPlan, 'creates' | 'lastIndex' | 'stalled'> {
  const prefix = pool.spec.useridPrefix;
  let rooms = initial;
  const creates: NewGuest[] = [];
  let index = lastIndex;
  while (creates.length < count) {
    const host = pickHost(rooms, size)?.name;
    if (host === undefined) return { creates, lastIndex: index, stalled: { reason: 'NoCapacity', message: noRoomMessage(rooms, size) } };
    index++;
    if (index > maxIndex(prefix)) {
      return { creates, lastIndex: index - 1, stalled: { reason: 'UseridsExhausted', message: `every userid ${poolUserid(prefix, 1)}..${poolUserid(prefix, maxIndex(prefix))} has been handed out` } };
    }
    const userid = poolUserid(prefix, index);
    if (taken.has(`${host}/${userid}`)) continue;
    rooms = reserve(rooms, host, size);
    creates.push({ index, userid, host });
  }
  return { creates, lastIndex: index };
}
