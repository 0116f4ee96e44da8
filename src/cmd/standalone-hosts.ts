import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../errors.js';
import type { Registry } from 'prom-client';
import type { HostRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../store/port.js';
import { createKubeHosts, type KubeHosts } from './kube-hosts.js';

/**
 * Standalone mode with several hosts (issue 15): besides the built-in `default` host, every other ZHost
 * of the embedded store is connected as in cluster mode (kube-hosts.ts: `simulated: true` runs another
 * simulator in this process, `smapi` connects to a SMAPI server such as a `zvm-operator sim` process).
 * One process holds every host, so there are no Leases. Credentials Secrets are directories with one
 * file per key, the layout of a Kubernetes Secret mounted as a volume: `<secrets-dir>/<name>/userid`.
 */
export interface StandaloneHosts extends HostRegistry {
  /** the ZHost watch of the extra hosts: run it with the controllers */
  more: KubeHosts;
}

export function directorySecretReader(dir: string): (name: string) => Promise<Record<string, string>> {
  return async (name) => {
    const path = join(dir, name);
    let keys: string[];
    try {
      keys = readdirSync(path).filter((k) => !k.startsWith('.'));
    } catch {
      throw new NotFoundError(`Secret ${name}: no directory ${path}`);
    }
    return Object.fromEntries(keys.map((k) => [k, readFileSync(join(path, k), 'utf8').trim()]));
  };
}

export function createStandaloneHosts(o: {
  builtIn: HostRegistry; builtInName: string; store: StateStore; stateDir: string; secretsDir: string; log: Logger; onHostReady: (name: string) => void;
  /** local directories the hosts' management guests may exchange image files with */
  imageDirs?: string[];
  /** SMAPI metrics of the extra hosts */
  registry?: Registry;
}): StandaloneHosts {
  const more = createKubeHosts({
    registry: o.registry, store: o.store, log: o.log, readSecret: directorySecretReader(o.secretsDir), simStateDir: o.stateDir, imageDirs: o.imageDirs,
    wanted: (name) => name !== o.builtInName, onHostReady: o.onHostReady,
  });
  return {
    more,
    forHost: (name) => (name === o.builtInName ? o.builtIn.forHost(name) : more.forHost(name)),
    register: (name, hv) => o.builtIn.register(name, hv),
    hosts: () => [...new Set([...o.builtIn.hosts(), ...more.hosts()])],
    async close() {
      await more.close();
      await o.builtIn.close();
    },
  };
}
