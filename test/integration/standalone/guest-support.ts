/** Shared set-up of the guest route tests: one standalone process per file, over real HTTP. */
import type { Standalone, StandaloneOptions } from '../../../src/cmd/standalone.js';
import type { Hypervisor } from '../../../src/hypervisor/port.js';
import { http, startTestStandalone, tempStateDir, type Envelope } from './helpers.js';

export interface GuestWorld {
  app: Standalone;
  hv: Hypervisor;
  call<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: Envelope<T> }>;
  /** POST /guests and expect 200 */
  createGuest(userid: string, extra?: Record<string, unknown>): Promise<Envelope>;
  stop(): Promise<void>;
}

export async function startGuestWorld(extra: Partial<StandaloneOptions> = {}): Promise<GuestWorld> {
  const state = tempStateDir();
  const app = await startTestStandalone(state.dir, extra);
  const call = <T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => http<T>(app.restUrl, method, path, body, headers);
  return {
    app,
    hv: app.hosts.forHost('default')!,
    call,
    async createGuest(userid, more = {}) {
      const res = await call('POST', '/guests', { guest: { userid, vcpus: 1, memory: 512, ...more } });
      if (res.status !== 200) throw new Error(`create ${userid}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async stop() {
      await app.stop();
      state.cleanup();
    },
  };
}

/** The envelope of a failure, as the reference shapes it. */
export function expectError(res: { status: number; body: Envelope }, status: number, fields: Partial<Envelope> = {}): void {
  expect({ status: res.status, ...pick(res.body, Object.keys(fields)) }).toEqual({ status, ...fields });
  expect(res.body.errmsg).not.toBe('');
}

function pick(obj: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (obj as Record<string, unknown>)[k]]));
}
