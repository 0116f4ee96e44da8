/**
 * Builders and helpers for the store contract. Only the port API is used, so the same helpers serve
 * the embedded store and an adapter over a real kube-apiserver (names are DNS-1123 and unique per call).
 */
import { API_VERSION, type ZGuest, type ZGuestSpec, type ZHost } from '../../src/api/index.js';
import type { ErrorCode } from '../../src/errors.js';
import type { Resource } from '../../src/api/index.js';
import type { StateStore, WatchEvent } from '../../src/store/index.js';

export interface StoreFixture {
  store: StateStore;
  /** releases whatever the factory set up (temp files, connections); the suite closes the store first. */
  cleanup(): Promise<void>;
}

export interface StoreContractOptions {
  /** returns a namespace objects may be created in (named `name` when given); against a real apiserver it must create it. */
  makeNamespace?: (store: StateStore, name?: string) => Promise<string>;
}

/** What each test sees: a fresh store and a way to get a namespace of its own. */
export interface ContractContext {
  store(): StateStore;
  /** `name`: a test that needs namespaces related by name picks it (keeping it unique) */
  namespace(name?: string): Promise<string>;
}

let sequence = 0;

export function uniqueName(prefix: string): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${sequence}-${Math.random().toString(36).slice(2, 7)}`;
}

export function aGuest(namespace: string, name = uniqueName('g'), spec: Partial<ZGuestSpec> = {}): ZGuest {
  return {
    apiVersion: API_VERSION,
    kind: 'ZGuest',
    metadata: { name, namespace },
    spec: { userid: 'LINUX01', vcpus: 1, memory: '1G', ...spec },
  };
}

export function aHost(name = uniqueName('h')): ZHost {
  return { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name }, spec: { simulated: true } };
}

/** Resolves to the error a promise rejected with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: ErrorCode; issues?: { path: string }[] }> {
  try {
    await promise;
  } catch (err) {
    return err as { code?: ErrorCode };
  }
  throw new Error('expected the call to reject');
}

export async function expectRejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  expect((await rejection(promise)).code).toBe(code);
}

/** Upper bound on waiting for watch events: a missing event fails the test instead of hanging it. */
const WATCH_BOUND_MS = 10_000;

/**
 * Reads `count` events, then aborts the watch through `controller`. Stops early (returning fewer
 * events, which the caller's assertion then reports) if the watch ends or the bound passes.
 */
export async function take<T extends Resource>(events: AsyncIterable<WatchEvent<T>>, count: number, controller: AbortController): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  const guard = setTimeout(() => controller.abort(), WATCH_BOUND_MS);
  try {
    for await (const event of events) {
      out.push(event);
      if (out.length >= count) break;
    }
  } finally {
    clearTimeout(guard);
    controller.abort();
  }
  return out;
}

/** `type name` per event, the shape most watch assertions compare. */
export function summary(events: WatchEvent[]): string[] {
  return events.map((e) => `${e.type} ${e.object.metadata.name}`);
}

export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
