/**
 * Live reads of a cluster's hosts for `kubectl zvm` and `plan --kubeconfig`: connections built from
 * the ZHost and its Secret exactly as the controller builds them. Loaded only when a cluster is
 * spoken to (it pulls in the Kubernetes client).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ZHost } from '../../api/index.js';
import { NotFoundError, NotSupportedError, ZvmError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import { silentLogger } from '../../log.js';
import { createManager } from '../../runtime/index.js';
import type { StateStore } from '../../store/port.js';
import { readHostGuests } from '../host-guests.js';
import { createKubeHosts } from '../kube-hosts.js';
import { kubeSecretReader } from '../kube-secrets.js';
import type { LiveReads } from './live.js';

export interface KubeLiveOptions {
  kubeconfig: KubeConfig;
  store: StateStore;
  /** where the ZHosts' credential Secrets are (the operator's namespace) */
  operatorNamespace: string;
  /** bound on connecting to a host */
  timeoutMs: number;
}

/** Connections to a cluster's hosts, made on first use and closed together. */
export interface KubeHostConnector {
  hypervisor(host: string): Promise<Hypervisor>;
  close(): Promise<void>;
}

/**
 * Cluster: a connection built from the ZHost and its Secret exactly as the controller builds it
 * (kube-hosts.ts), made only when a verb reads the host. A simulated host lives inside the
 * controller process: nothing outside it can read it (a second simulator would answer for another host).
 */
export function connectKubeHosts(opts: KubeLiveOptions): KubeHostConnector {
  let started: { hosts: ReturnType<typeof createKubeHosts>; manager: ReturnType<typeof createManager>; ready: Map<string, () => void> } | undefined;
  /** only the hosts a verb reads are connected to */
  const wanted = new Set<string>();

  function start() {
    if (started) return started;
    const ready = new Map<string, () => void>();
    const hosts = createKubeHosts({
      store: opts.store, log: silentLogger(), readSecret: kubeSecretReader(opts.kubeconfig, opts.operatorNamespace),
      wanted: (name) => wanted.has(name), onHostReady: (name) => ready.get(name)?.(),
    });
    const manager = createManager({ log: silentLogger(), runnables: [hosts.informer] });
    void manager.start().catch(() => undefined);
    started = { hosts, manager, ready };
    return started;
  }

  async function hypervisor(host: string): Promise<Hypervisor> {
    const zhost = await opts.store.get<ZHost>('ZHost', { name: host });
    if (!zhost) throw new NotFoundError(`host ${host} not found`);
    if (zhost.spec.simulated) throw new NotSupportedError(`host ${host} is simulated inside the controller process; it cannot be read from outside it`);
    const { hosts, ready } = start();
    wanted.add(host);
    hosts.resync(host);
    const hv = hosts.forHost(host);
    if (hv) return hv;
    return new Promise<Hypervisor>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ZvmError('TIMEOUT', `could not connect to host ${host} within ${opts.timeoutMs / 1000} s (its Secret in namespace ${opts.operatorNamespace}?)`)), opts.timeoutMs);
      ready.set(host, () => {
        clearTimeout(timer);
        const got = hosts.forHost(host);
        if (got) resolve(got);
      });
    });
  }

  return {
    hypervisor,
    async close() {
      if (!started) return;
      await started.manager.stop();
      await started.hosts.close();
    },
  };
}

/** Cluster: live reads over connectKubeHosts. */
export function kubeLiveReads(opts: KubeLiveOptions): LiveReads {
  const hosts = connectKubeHosts(opts);
  return {
    power: async (host, userid) => (await hosts.hypervisor(host)).queryPowerState(userid.toUpperCase()),
    console: async (host, userid) => (await hosts.hypervisor(host)).getConsoleOutput(userid.toUpperCase()),
    hostGuests: async (host) => readHostGuests(await hosts.hypervisor(host)),
    close: () => hosts.close(),
  };
}
