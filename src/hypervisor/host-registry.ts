import { NotFoundError } from '../errors.js';
import type { Hypervisor } from './port.js';

/** What a controller needs of the hosts: the connection of one ZHost, or undefined while it is not known. */
export interface HypervisorRegistry {
  forHost(name: string): Hypervisor | undefined;
}

/** Hypervisor connections per ZHost name: queue keys and connections are per host (docs/architecture.md §2). */
export interface HostRegistry extends HypervisorRegistry {
  register(name: string, hypervisor: Hypervisor): void;
  hosts(): string[];
  close(): Promise<void>;
}

export function createHostRegistry(): HostRegistry {
  const hosts = new Map<string, Hypervisor>();
  return {
    forHost: (name) => hosts.get(name),
    register(name, hypervisor) {
      hosts.set(name, hypervisor);
    },
    hosts: () => [...hosts.keys()],
    async close() {
      await Promise.all([...hosts.values()].map((h) => h.close()));
      hosts.clear();
    },
  };
}

/** The registry as the REST layer needs it: an unknown host is a NotFoundError, not undefined. */
export function requireHosts(registry: Pick<HostRegistry, 'forHost'>): { forHost(name: string): Hypervisor } {
  return {
    forHost(name) {
      const hv = registry.forHost(name);
      if (!hv) throw new NotFoundError(`ZHost ${name} is not known`);
      return hv;
    },
  };
}
