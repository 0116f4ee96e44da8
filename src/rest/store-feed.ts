/**
 * One store watch per kind and namespace for the whole REST process, fanned out to the requests
 * waiting on single objects (write-and-wait.ts): a thousand waiting calls cost one watch, not a
 * thousand. The watch starts on first use and runs until close(). It resumes from the last version
 * it saw; when it has to start afresh (an expired version, a failed stream), every waiter is told
 * to read its object again, since changes may have been missed in between.
 */
import type { Resource } from '../api/index.js';
import { GoneError } from '../errors.js';
import type { Logger } from '../log.js';
import { realClock, sleep } from '../runtime/clock.js';
import { backoffDelay } from '../runtime/work-queue.js';
import type { ObjectKey, StateStore } from '../store/port.js';

/** What a waiter hears: the object as it now is (undefined: deleted), or RESYNC (read it again). */
export const RESYNC = Symbol('resync');
export type FeedNews<T extends Resource> = T | undefined | typeof RESYNC;
export type FeedListener<T extends Resource> = (news: FeedNews<T>) => void;

export interface StoreFeed {
  /** Resolves once the watch covers every later change of the object; call the result to unsubscribe. */
  subscribe<T extends Resource>(kind: string, key: ObjectKey, listener: FeedListener<T>): Promise<() => void>;
  close(): void;
}

interface Channel {
  listeners: Map<string, Set<FeedListener<Resource>>>;
  /** resolves when the first watch has started */
  ready: Promise<void>;
}

const RESTART_MS = { initial: 200, max: 10_000 };

export function createStoreFeed(store: StateStore, log: Logger): StoreFeed {
  const stopper = new AbortController();
  const channels = new Map<string, Channel>();

  function tell(channel: Channel, name: string | undefined, news: FeedNews<Resource>): void {
    const sets = name === undefined ? [...channel.listeners.values()] : [channel.listeners.get(name) ?? new Set()];
    for (const set of sets) for (const listener of [...set]) listener(news);
  }

  /** Watches until close(): from the last seen version when it can, else afresh (and waiters re-read). */
  async function run(kind: string, namespace: string | undefined, channel: Channel, started: () => void): Promise<void> {
    const signal = stopper.signal;
    let rv: string | undefined;
    try {
      for (let idle = 0; !signal.aborted; idle++) {
        const fresh = rv === undefined;
        try {
          // A fresh watch starts from a list's version: a watch without one begins whenever its stream
          // connects, so a change made between "ready" and that moment would reach no waiter.
          if (fresh) rv = (await store.list(kind, namespace ? { namespace } : {})).resourceVersion;
          const events = store.watch(kind, { ...(namespace ? { namespace } : {}), resourceVersion: rv, signal });
          started();
          if (fresh) tell(channel, undefined, RESYNC);
          for await (const ev of events) {
            rv = ev.object.metadata.resourceVersion ?? rv;
            idle = 0;
            if (ev.type !== 'BOOKMARK') tell(channel, ev.object.metadata.name, ev.type === 'DELETED' ? undefined : ev.object);
          }
        } catch (err) {
          if (signal.aborted) return;
          if (!(err instanceof GoneError)) log.warn({ err, kind }, 'REST store watch failed; restarting');
          rv = undefined;
        }
        // a stream that ends or fails at once (a store shutting down) must not spin
        await sleep(backoffDelay(idle, RESTART_MS.initial, RESTART_MS.max), signal, realClock);
      }
    } finally {
      started();
    }
  }

  function channelOf(kind: string, namespace: string | undefined): Channel {
    const id = `${kind}/${namespace ?? ''}`;
    let channel = channels.get(id);
    if (!channel) {
      let started!: () => void;
      const ready = new Promise<void>((resolve) => (started = resolve));
      channel = { listeners: new Map(), ready };
      channels.set(id, channel);
      void run(kind, namespace, channel, started);
    }
    return channel;
  }

  return {
    async subscribe<T extends Resource>(kind: string, key: ObjectKey, listener: FeedListener<T>) {
      const channel = channelOf(kind, key.namespace);
      const set = channel.listeners.get(key.name) ?? new Set();
      channel.listeners.set(key.name, set);
      const entry = listener as FeedListener<Resource>;
      set.add(entry);
      await channel.ready;
      return () => {
        set.delete(entry);
        if (set.size === 0 && channel.listeners.get(key.name) === set) channel.listeners.delete(key.name);
      };
    },
    close() {
      stopper.abort();
      for (const channel of channels.values()) channel.listeners.clear();
      log.debug({ watches: [...channels.keys()] }, 'REST store watches closed');
    },
  };
}
