import { hostOf } from '../../api/index.js';
import type { Hypervisor, HypervisorRegistry } from '../../hypervisor/index.js';

/** The condition (and Event) reason of a resource whose ZHost is not known or cannot do what it needs. */
export const HOST_NOT_FOUND = 'HostNotFound';

/** How soon a controller looks again for a host that is not (yet) known. */
export const DEFAULT_HOST_RETRY_MS = 30_000;

export function hostNotKnown(hostName: string): string {
  return `ZHost ${hostName} is not known`;
}

/** The resource's host (spec.host, else the default host) and its hypervisor, undefined while that host is not known. */
export function lookupHost(hypervisors: HypervisorRegistry, resource: { spec?: unknown }): { hostName: string; hv: Hypervisor | undefined } {
  const hostName = hostOf(resource);
  return { hostName, hv: hypervisors.forHost(hostName) };
}
