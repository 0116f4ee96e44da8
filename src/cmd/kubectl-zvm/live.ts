/**
 * Live reads of a host for `kubectl zvm` (power, console, what the host reports). Reads only: the
 * hypervisor the verbs see refuses every other call, so the plugin can never act on z/VM itself.
 * A cluster's reads are in kube-live.ts, loaded only when a verb talks to a cluster.
 */
import { NotSupportedError } from '../../errors.js';
import type { Hypervisor, PowerState } from '../../hypervisor/index.js';
import type { HostGuest } from '../host-guests.js';
import type { AdminApi } from './admin-api.js';

export interface LiveReads {
  power(host: string, userid: string): Promise<PowerState>;
  console(host: string, userid: string): Promise<string>;
  hostGuests(host: string): Promise<HostGuest[]>;
  close(): Promise<void>;
}

/** The hypervisor GuestService and the REST actions see: the reads above, every other call refused. */
export function readOnlyHypervisors(live: LiveReads): { forHost(name: string): Hypervisor } {
  return {
    forHost(host) {
      const reads: Partial<Hypervisor> = {
        queryPowerState: (userid) => live.power(host, userid),
        getConsoleOutput: (userid) => live.console(host, userid),
      };
      return new Proxy(reads, {
        get(target, prop) {
          if (prop in target || typeof prop !== 'string' || prop === 'mgmt' || prop === 'then') return target[prop as keyof Hypervisor];
          return () => Promise.reject(new NotSupportedError(`kubectl zvm does not call ${prop} on z/VM: the controllers do`));
        },
      }) as Hypervisor;
    },
  };
}

/** Standalone: the admin API reads the host in the server process. */
export function adminLiveReads(api: AdminApi): LiveReads {
  const base = (host: string) => `/hosts/${encodeURIComponent(host)}/guests`;
  return {
    power: async (host, userid) => (await api.request<{ power: PowerState }>('GET', `${base(host)}/${encodeURIComponent(userid)}/power`)).power,
    console: async (host, userid) => (await api.request<{ output: string }>('GET', `${base(host)}/${encodeURIComponent(userid)}/console`)).output,
    hostGuests: (host) => api.request<HostGuest[]>('GET', base(host)),
    close: async () => undefined,
  };
}
